#!/usr/bin/python3
"""check_report.py: `aotc analyze --report` in a real browser (issue #30).

    check_report.py AOTC WORKDIR MODEL [aotc analyze options...]

runs `AOTC analyze MODEL --report WORKDIR/report.html [options]` and checks the page with
Debian's chromium (exit status 77, which ctest reports as skipped with this script's
message, when chromium is not installed: scripts/setup.sh installs it).

The page must be self-contained (no URL it would fetch: no src= or href= attribute, no
http(s) address but SVG's namespace name), load in headless Chromium with no message on
its console (an uncaught error or a console.error would print one), run its script (which
marks the body data-ready="sortable" when the layer table is sortable), and draw its charts:
the screenshot must hold pixels of the bar chart's two colours, and of the memory plan's
boxes. Exit status 0, or 1 with the reason. Standard library only (the PNG is decoded here).
"""
import os
import re
import shutil
import struct
import subprocess
import sys
import zlib

CYCLES_BAR = (0x33, 0x66, 0xcc)
MACS_BAR = (0xdc, 0x39, 0x12)


def fail(reason):
    print('FAIL: ' + reason)
    sys.exit(1)


def chromium(binary, *args):
    command = [binary, '--headless', '--no-sandbox', '--disable-gpu', '--enable-logging=stderr', '--v=0'] + list(args)
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def png_pixels(path):
    """(width, height, rows of (r, g, b) tuples) of an 8-bit RGB or RGBA PNG."""
    data = open(path, 'rb').read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        fail(path + ' is not a PNG')
    at, idat, header = 8, b'', None
    while at < len(data):
        length, kind = struct.unpack('>I4s', data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        if kind == b'IHDR':
            header = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT':
            idat += body
        at += 12 + length
    width, height, depth, colour = header[0], header[1], header[2], header[3]
    if depth != 8 or colour not in (2, 6):
        fail('unexpected PNG format (bit depth %d, colour type %d)' % (depth, colour))
    channels = 3 if colour == 2 else 4
    raw, stride = zlib.decompress(idat), width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            left = line[x - channels] if x >= channels else 0
            up, corner = previous[x], previous[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + left) & 255
            elif kind == 2:
                line[x] = (line[x] + up) & 255
            elif kind == 3:
                line[x] = (line[x] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[x] = (line[x] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        rows.append([tuple(line[x:x + 3]) for x in range(0, stride, channels)])
        previous = line
    return width, height, rows


def main(aotc, workdir, model, *options):
    binary = shutil.which('chromium')
    if binary is None:
        print('SKIP: chromium is not installed (apt-get install chromium; scripts/setup.sh does)')
        sys.exit(77)
    os.makedirs(workdir, exist_ok=True)
    report, screenshot = os.path.join(workdir, 'report.html'), os.path.join(workdir, 'report.png')
    for stale in (report, screenshot):
        if os.path.exists(stale):
            os.remove(stale)
    analyze = subprocess.run([aotc, 'analyze', model, '--report', report] + list(options), capture_output=True, text=True)
    if analyze.returncode != 0:
        fail('aotc analyze failed:\n' + analyze.stdout + analyze.stderr)
    html = open(report, encoding='utf-8').read()
    if re.search(r'\s(src|href)\s*=', html):
        fail('the page refers to another file or address (src= or href=)')
    addresses = set(re.findall(r'https?://[^"\s<>]+', html))
    if addresses - {'http://www.w3.org/2000/svg'}:
        fail('the page names addresses: %s' % sorted(addresses))

    url = 'file://' + os.path.abspath(report)
    dom = chromium(binary, '--dump-dom', url)
    console = [line for line in dom.stderr.splitlines() if 'CONSOLE' in line]
    if console:
        fail('messages on the console:\n' + '\n'.join(console))
    if 'data-ready="sortable"' not in dom.stdout:
        fail('the page\'s script did not run (no data-ready="sortable" on the body); exit status %d' % dom.returncode)

    shot = chromium(binary, '--screenshot=' + os.path.abspath(screenshot), '--window-size=1280,2400', url)
    if not os.path.exists(screenshot):
        fail('no screenshot: ' + shot.stderr[-2000:])
    width, height, rows = png_pixels(screenshot)
    counts = {}
    for row in rows:
        for pixel in row:
            counts[pixel] = counts.get(pixel, 0) + 1
    for name, colour in (('estimated cycles', CYCLES_BAR), ('MACs', MACS_BAR)):
        if counts.get(colour, 0) < 200:
            fail('the bar chart shows almost no %s bars (%d pixels of %s)' % (name, counts.get(colour, 0), colour))
    coloured = sum(n for pixel, n in counts.items() if max(pixel) - min(pixel) > 40)
    print('ok: %dx%d screenshot, %d cycles-bar and %d MACs-bar pixels, %d coloured pixels in all' % (
        width, height, counts[CYCLES_BAR], counts[MACS_BAR], coloured))


if __name__ == '__main__':
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
