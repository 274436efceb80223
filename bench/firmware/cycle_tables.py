#!/usr/bin/python3
"""cycle_tables.py: the estimated Cortex-M4 cycle tables of bench_firmware.cmake.

bench_firmware.cmake runs ../shared/tools/cycles/cycles.py once on each Cortex-M4 firmware
(one traced QEMU run of reference case 0, priced with the Cortex-M4 TRM's timings; the
tool's README says what is a guess) with --json and --top-insns, and calls this script with
one `model:compiler:dir` argument per firmware, where dir holds cycles.json, cycles.txt (the
tool's report with every executed instruction) and model/metadata.json. It prints two
Markdown tables:

  1. per model and compiler: estimated cycles of one inference in the tool's two models
     (issue costs, the headline; with FPU result latencies, the figure goals are stated
     on), cycles per MAC and per instruction, the instruction classes that take most of
     the cycles; and, per model, the figures to beat (../shared/README.md): TFLite Micro +
     CMSIS-NN estimated by the same tool, and the best published MLPerf Tiny results on a
     Cortex-M4F (X-CUBE-AI 9.0, Plumerai; real silicon at 120 MHz with flash wait states);
  2. the layers that take most cycles (the first compiler's), each with its kernel, shape,
     MACs, cycles, cycles per MAC and the instruction classes that dominate it;
  3. with COST_TABLE=ON in the environment, the [cycles] table of targets/cortex-m4.toml that
     `aotc analyze` estimates with, fitted to these runs, and how well it predicts each
     model (also with the model left out of the fit).

The classes of table 2 are this script's, from each executed instruction's mnemonic (the
tool prints them with --top-insns): loads (LDR*, LDRD, LDM, POP, VLDR, VLDM, VPOP), stores,
int MACs (SMLAD, MLA, SMLAL, MUL...), FP MACs (VMLA, VFMA...), branches, SIMD/saturate (the
DSP extension's other instructions: SXTB16, SSAT, PKHBT, QADD...), other (ALU, FP arithmetic
such as VADD and VMUL, moves). Their sum
over a model is checked against the tool's own class histogram (within 0.5% of the cycles,
else the script fails).

Standard library only.
"""
import json
import os
import re
import sys

# ../shared/README.md: TFLite Micro + CMSIS-NN estimated by tools/cycles (gcc 12.2 -O2), and
# the best published MLPerf Tiny results on a Cortex-M4F (mlcommons tiny_results, closed
# division, STM32L4R5 at 120 MHz): millions of cycles.
TFLM_CMSIS_ESTIMATED = {'kws_ref_model': 9.31, 'vww_96_int8': 29.51, 'pretrainedResnet_quant': 36.91, 'ad01_int8': 0.728}
X_CUBE_AI = {'kws_ref_model': 5.18, 'vww_96_int8': 10.67, 'pretrainedResnet_quant': 19.82, 'ad01_int8': 0.63}
PLUMERAI = {'kws_ref_model': 5.73, 'vww_96_int8': 11.85, 'pretrainedResnet_quant': 20.13, 'ad01_int8': 0.49}

TOP_LAYERS = int(os.environ.get('TOP_LAYERS', '5'))
CLASSES = ['loads', 'stores', 'int MACs', 'FP MACs', 'branches', 'SIMD/saturate', 'other']
# Where the tool's histogram has the same classes: (class, fine class or None).
TOOL_CLASSES = {'loads': ('loads', None), 'stores': ('stores', None), 'int MACs': ('DSP/int MACs', None),
                'FP MACs': ('FP MACs', None), 'branches': ('branches', None), 'SIMD/saturate': ('other', 'dsp.simd'),
                'other': ('other', '-dsp.simd')}


def tool_cycles(histogram, name):
    """The cycles of one of CLASSES in the tool's histogram (its `other` split into its DSP
    non-MAC instructions, SXTB16, SSAT, PKHBT, QADD..., and the rest: ALU, FP arithmetic
    and moves, IT)."""
    coarse, fine = TOOL_CLASSES[name]
    entry = histogram[coarse]
    if fine is None:
        return entry['cycles']
    if fine.startswith('-'):  # all but that fine class
        return entry['cycles'] - entry['fine'].get(fine[1:], {}).get('cycles', 0)
    return entry['fine'].get(fine, {}).get('cycles', 0)


def instruction_class(text):
    """The class of one instruction from objdump's text ("ldrd r0, r3, [lr, #-8]")."""
    parts = text.split()
    mnemonic = re.sub(r'\.(n|w|f32|f64|32|64)$', '', parts[0]) if parts else ''
    operands = ' '.join(parts[1:])
    if mnemonic in ('pop', 'ldm', 'ldmia', 'ldmfd', 'ldmdb') and 'pc' in operands:
        return 'branches'
    if re.match(r'(ldr|ldm|pop$|vldr|vldm|vpop|ldrex)', mnemonic):
        return 'loads'
    if re.match(r'(str|stm|push$|vstr|vstm|vpush|strex)', mnemonic):
        return 'stores'
    if re.match(r'(vmla|vmls|vnmla|vnmls|vfma|vfms|vfnma|vfnms)', mnemonic):
        return 'FP MACs'
    if re.match(r'(smla|smlsd|smlal|smuad|smusd|smul|smmla|smmls|smmul|umull|umlal|umaal|mla|mls|mul|muls|usad)', mnemonic):
        return 'int MACs'
    if re.match(r'(b|bl|blx|bx|cbz|cbnz|tbb|tbh)(eq|ne|cs|cc|hs|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le|al)?$', mnemonic):
        return 'branches'
    if mnemonic in ('mov', 'add') and operands.startswith('pc'):
        return 'branches'
    if re.match(r'(sxtb16|sxtab16|uxtb16|uxtab16|ssat|usat|pkhbt|pkhtb|sel$|[su]?q?(add|sub)(8|16)|[su]h(add|sub)|q(d)?(add|sub)$|[su]q?asx|[su]q?sax|usad8)', mnemonic):
        return 'SIMD/saturate'
    return 'other'


def hottest_instructions(report):
    """(function prefix, class, cycles) of every instruction the report lists."""
    rows = []
    in_list = False
    for line in report.splitlines():
        if 'hottest instructions:' in line:
            in_list = True
            continue
        if not in_list:
            continue
        # address, executions, cycles, latency stalls, then the instruction in 40 columns
        # and the function ('  %8x %12s %12s %10s %-40s %s').
        m = re.match(r'^  [ 0-9a-f]{8} [ 0-9,]{12} ([ 0-9,]{12}) [ 0-9,]{10} ', line)
        if not m:
            if line.strip() == '':
                break
            continue
        rest = line[m.end():]
        rows.append((rest[41:].strip(), instruction_class(rest[:40]), int(m.group(1).replace(',', ''))))
    return rows


def millions(value, digits=2):
    return ('%.' + str(digits) + 'f M') % (value / 1e6)


def dominant(shares, total):
    """The two classes with the most cycles: 'loads 34%, other 29%'."""
    ranked = sorted(shares.items(), key=lambda item: -item[1])[:2]
    return ', '.join('%s %d%%' % (name, round(100.0 * cycles / total)) for name, cycles in ranked if cycles > 0)


def main(arguments):
    runs = []
    directories = []
    for argument in arguments:
        model, compiler, directory = argument.split(':', 2)
        directories.append(directory)
        result = json.load(open(os.path.join(directory, 'cycles.json')))
        metadata = json.load(open(os.path.join(directory, 'model', 'metadata.json')))
        report = open(os.path.join(directory, 'cycles.txt')).read()
        if not result.get('checks_ok'):
            sys.exit('%s (%s): the cycle tool\'s self-checks failed: %s' % (model, compiler, result.get('checks')))
        runs.append((model, compiler, result, metadata, hottest_instructions(report)))

    compilers = []
    for _, compiler, _, _, _ in runs:
        if compiler not in compilers:
            compilers.append(compiler)

    print('Estimated Cortex-M4 cycles of one inference (`../shared/tools/cycles/cycles.py` on the '
          'Cortex-M4F firmware above, reference case 0: one QEMU run traced and priced with the '
          'Cortex-M4 TRM\'s timings, zero wait states, P = 2; its self-checks against SysTick '
          'passed for every run). "latency" adds the cycle an FPU result read by the next '
          'instruction costs (the figure goals are stated on). Classes: the tool\'s histogram, '
          'share of the cycles.\n')
    print('| model | compiler | cycles | latency | cycles/MAC | cycles/instr | most cycles in |')
    print('|---|---|--:|--:|--:|--:|---|')
    best = {}
    for model, compiler, result, _, _ in runs:
        histogram = result['histogram']
        shares = {name: tool_cycles(histogram, name) for name in CLASSES}
        print('| %s | %s | %s | %s | %.3f | %.3f | %s |' % (
            model, compiler, millions(result['cycles_issue_model']), millions(result['cycles_latency_model']),
            result['cycles_issue_model'] / result['macs'], result['cpi'],
            dominant(shares, result['cycles_issue_model'])))
        best[model] = min(best.get(model, float('inf')), result['cycles_latency_model'])

    print('\nAgainst the figures to beat (../shared/README.md): TFLite Micro + CMSIS-NN estimated by the '
          'same tool, and the best published MLPerf Tiny results on a Cortex-M4F (STM32L4R5, real '
          'silicon at 120 MHz with its flash wait states, which the estimate does not have: matching '
          'them in the estimate is the least to reach). aotc: the better compiler\'s latency-model figure.\n')
    print('| model | aotc | TFLM + CMSIS-NN (est.) | X-CUBE-AI 9.0 | Plumerai | aotc / best published |')
    print('|---|--:|--:|--:|--:|--:|')
    for model in best:
        if model not in X_CUBE_AI:
            continue
        published = min(X_CUBE_AI[model], PLUMERAI[model])
        print('| %s | %s | %.2f M | %.2f M | %.2f M | %.2fx |' % (
            model, millions(best[model]), TFLM_CMSIS_ESTIMATED[model], X_CUBE_AI[model], PLUMERAI[model],
            best[model] / 1e6 / published))

    first = compilers[0]
    print('\nThe layers that take most cycles (%s; cycles of the function that is the kernel, '
          'exclusive; classes from the mnemonics of its executed instructions):\n' % first)
    print('| model | kernel | what | MACs | cycles | share | cycles/MAC | most cycles in |')
    print('|---|---|---|--:|--:|--:|--:|---|')
    for model, compiler, result, metadata, instructions in runs:
        if compiler != first:
            continue
        totals = {name: 0 for name in CLASSES}
        for _, name, cycles in instructions:
            totals[name] += cycles
        for name in CLASSES:
            tool = tool_cycles(result['histogram'], name)
            if abs(totals[name] - tool) > 0.005 * result['cycles_issue_model']:
                sys.exit('%s: class %s has %d cycles here, %d in the tool\'s histogram' % (model, name, totals[name], tool))
        kernels = {k['function']: k for k in metadata.get('kernels', [])}
        ranked = sorted(result['functions'].items(), key=lambda item: -item[1]['cycles'])[:TOP_LAYERS]
        for function, figures in ranked:
            stem = function.split('.')[0]
            kernel = kernels.get(stem, {})
            classes = {name: 0 for name in CLASSES}
            for owner, name, cycles in instructions:
                if owner == function[:40]:  # the report cuts names at 40 characters
                    classes[name] += cycles
            macs = kernel.get('macs') or 0
            print('| %s | %s | %s | %s | %s | %.1f%% | %s | %s |' % (
                model, kernel.get('kernel', stem), kernel.get('geometry', ''), '{:,}'.format(macs) if macs else '',
                '{:,}'.format(figures['cycles']), 100.0 * figures['cycles'] / result['cycles_issue_model'],
                '%.3f' % (figures['cycles'] / macs) if macs else '', dominant(classes, figures['cycles'])))

    if os.environ.get('COST_TABLE') == 'ON':
        cost_table(runs, directories)


def helper_callers(directory, metadata, helpers):
    """For each helper function (a runtime function that is not inlined, such as
    aotc_dot_f32_4x4), the kernel functions whose generated C calls it."""
    source = open(os.path.join(directory, 'model', metadata['name'] + '.c')).read()
    functions = [k['function'] for k in metadata.get('kernels', [])]
    starts = sorted((source.find(' ' + f + '('), f) for f in functions if source.find(' ' + f + '(') >= 0)
    callers = {h: [] for h in helpers}
    for i, (start, function) in enumerate(starts):
        body = source[start:starts[i + 1][0] if i + 1 < len(starts) else len(source)]
        for h in helpers:
            if h + '(' in body:
                callers[h].append(function)
    return callers


def layer_samples(result, metadata, directory):
    """(kernel, MACs, output elements, cycles) of every kernel step, its cycles inclusive:
    a helper function's cycles go to the kernels that call it, in proportion to their MACs."""
    kernels = {k['function']: k for k in metadata.get('kernels', [])}
    cycles = {}
    helpers = {}
    for function, figures in result['functions'].items():
        stem = function.split('.')[0]
        if stem in kernels:
            cycles[stem] = cycles.get(stem, 0) + figures['cycles']
        elif function.startswith('aotc_dot') or function.startswith('aotc_dw') or function.startswith('aotc_mve'):
            helpers[function] = figures['cycles']
    for helper, callers in helper_callers(directory, metadata, list(helpers)).items():
        macs = sum(kernels[c].get('macs', 0) for c in callers)
        for c in callers:
            share = kernels[c].get('macs', 0) / macs if macs else 1.0 / len(callers)
            cycles[c] = cycles.get(c, 0) + helpers[helper] * share
    return [(k.get('kernel') or 'default', k.get('macs', 0), k.get('output_elements', 0), cycles.get(f, 0))
            for f, k in kernels.items() if k.get('device', 'cpu') == 'cpu']


def fit_costs(samples):
    """Per kernel, [per_mac, per_output, per_call] >= 0 minimising the squared error of its
    layers' cycles (the best of the non-negative least-squares solutions over the subsets
    of the three terms that a kernel's layers can determine; per_mac always for a kernel
    that multiplies); steps outside the kernel strategy (softmax, elementwise...) share
    "default"."""
    import itertools
    import numpy as np
    by_kernel = {}
    for kernel, macs, outputs, cycles in samples:
        by_kernel.setdefault(kernel, []).append((macs, outputs, cycles))
    costs = {}
    for kernel, rows in sorted(by_kernel.items()):
        a = np.array([[m, o, 1.0] for m, o, _ in rows], dtype=float)
        b = np.array([c for _, _, c in rows], dtype=float)
        # A kernel that multiplies is charged per MAC whatever else: with few layers seen,
        # a per-call or per-output figure alone would not carry over to larger layers.
        multiplies = any(m > 0 for m, _, _ in rows)
        best = None
        for size in (3, 2, 1):
            for columns in itertools.combinations(range(3), size):
                if len(rows) < len(columns) or (multiplies and 0 not in columns):
                    continue
                x, *_ = np.linalg.lstsq(a[:, columns], b, rcond=None)
                if (x < 0).any():
                    continue
                error = float(((a[:, columns] @ x - b) ** 2).sum())
                if best is None or error < best[0] - 1e-9:
                    coefficients = [0.0, 0.0, 0.0]
                    for column, value in zip(columns, x):
                        coefficients[column] = float(value)
                    best = (error, coefficients)
        costs[kernel] = best[1] if best else [0.0, 0.0, 0.0]
    return costs


def estimate(costs, kernel, macs, outputs):
    c = costs.get(kernel, costs.get('default', [0.0, 0.0, 0.0]))
    return c[0] * macs + c[1] * outputs + c[2]


def cost_table(runs, directories):
    """The [cycles] table of targets/cortex-m4.toml, fitted to the first compiler's runs, and
    each model's estimated total against the measured one."""
    first = runs[0][1]
    samples, per_model = [], []
    for (model, compiler, result, metadata, _), directory in zip(runs, directories):
        if compiler != first:
            continue
        layers = layer_samples(result, metadata, directory)
        samples += layers
        per_model.append((model, result, layers))
    costs = fit_costs(samples)
    print('\nCost table for `aotc analyze` (per kernel: cycles = per_mac x MACs + per_output x output '
          'elements + per_call, each kernel\'s layers\' cycles, helper functions included, fitted by '
          'least squares with coefficients >= 0, %s, `targets/cortex-m4.toml` `[cycles]`), and each '
          'model\'s estimated total against the measured one:\n' % first)
    print('```toml')
    for kernel, c in sorted(costs.items()):
        print('"%s" = [%.4g, %.4g, %.4g]' % (kernel, c[0], c[1], c[2]))
    print('```\n')
    print('"estimated" uses the table above; "left out" a table fitted to the other models only, '
          'which is how far the table can be trusted on a model it has not seen.\n')
    print('| model | measured cycles | estimated | error | left out | error |')
    print('|---|--:|--:|--:|--:|--:|')
    for model, result, layers in per_model:
        measured = result['cycles_issue_model']
        estimated = sum(estimate(costs, k, m, o) for k, m, o, _ in layers)
        others = fit_costs([sample for other, _, rows in per_model if other != model for sample in rows])
        unseen = sum(estimate(others, k, m, o) for k, m, o, _ in layers)
        print('| %s | %s | %s | %+.1f%% | %s | %+.1f%% |' % (
            model, millions(measured), millions(estimated), 100.0 * (estimated - measured) / measured,
            millions(unseen), 100.0 * (unseen - measured) / measured))


if __name__ == '__main__':
    main(sys.argv[1:])
