# A minimal TFLite flatbuffer writer for the malformed-model generators: tensors (with
# quantization, per-axis with qdim), constant buffers, operators with builtin options given slot by slot.
# Needs Debian's python3-flatbuffers.
import flatbuffers, numpy as np, struct
F32, I32, I64, I16, I8 = 0, 2, 4, 7, 9
class M:
    def __init__(s): s.tensors=[]; s.inputs=[]; s.outputs=[]; s.ops=[]
    def t(s, name, typ, shape, data=None, scale=None, zp=None, inp=False, out=False, qdim=0):
        s.tensors.append(dict(name=name, type=typ, shape=list(shape), data=data, scale=scale, zp=zp, qdim=qdim))
        i = len(s.tensors)-1
        if inp: s.inputs.append(i)
        if out: s.outputs.append(i)
        return i
    def const(s, name, arr, typ):
        arr = np.asarray(arr); return s.t(name, typ, arr.shape, data=arr.tobytes())
    def op(s, code, ins, outs, opt_type=0, opt=None):  # opt: list of (slot, kind, value)
        s.ops.append((code, ins, outs, opt_type, opt))
    def build(s, path):
        b = flatbuffers.Builder(1024)
        def ivec(vals, kind='i'):
            n = len(vals)
            if kind == 'i': b.StartVector(4, n, 4); [b.PrependInt32(v) for v in reversed(vals)]
            elif kind == 'f': b.StartVector(4, n, 4); [b.PrependFloat32(v) for v in reversed(vals)]
            elif kind == 'l': b.StartVector(8, n, 8); [b.PrependInt64(v) for v in reversed(vals)]
            elif kind == 'b': b.StartVector(1, n, 16); [b.PrependUint8(v) for v in reversed(vals)]
            return b.EndVector()
        def tvec(offs):
            b.StartVector(4, len(offs), 4); [b.PrependUOffsetTRelative(o) for o in reversed(offs)]; return b.EndVector()
        # buffers
        bufs = []
        b.StartObject(3); bufs.append(b.EndObject())
        tens = []
        for t in s.tensors:
            bi = 0
            if t['data'] is not None:
                d = ivec(list(t['data']), 'b'); b.StartObject(3); b.PrependUOffsetTRelativeSlot(0, d, 0); bufs.append(b.EndObject()); bi = len(bufs)-1
            q = None
            if t['scale'] is not None:
                sc = ivec(t['scale'], 'f'); z = ivec(t['zp'], 'l')
                b.StartObject(7); b.PrependUOffsetTRelativeSlot(2, sc, 0); b.PrependUOffsetTRelativeSlot(3, z, 0)
                b.PrependInt32Slot(6, t['qdim'], 0); q = b.EndObject()
            sh = ivec(t['shape']); nm = b.CreateString(t['name'])
            b.StartObject(8); b.PrependUOffsetTRelativeSlot(0, sh, 0); b.PrependInt8Slot(1, t['type'], -1)
            b.PrependUint32Slot(2, bi, 0xffffffff); b.PrependUOffsetTRelativeSlot(3, nm, 0)
            if q is not None: b.PrependUOffsetTRelativeSlot(4, q, 0)
            tens.append(b.EndObject())
        codes = []; codeoffs = []; ops = []
        for code, ins, outs, ot, opt in s.ops:
            if code not in codes:
                codes.append(code); b.StartObject(4); b.PrependInt8Slot(0, min(code, 127), -1); b.PrependInt32Slot(2, 1, 0); b.PrependInt32Slot(3, code, -1); codeoffs.append(b.EndObject())
            oo = None
            if opt is not None:
                b.StartObject(max([x[0] for x in opt] + [0]) + 1)
                for slot, kind, v in opt:
                    if kind == 'i': b.PrependInt32Slot(slot, v, v ^ 1)
                    elif kind == 'b': b.PrependInt8Slot(slot, v, v ^ 1)
                    elif kind == 'f': b.PrependFloat32Slot(slot, v, v + 1)
                oo = b.EndObject()
            iv = ivec(ins); ov = ivec(outs)
            b.StartObject(6); b.PrependUint32Slot(0, codes.index(code), 0xffffffff); b.PrependUOffsetTRelativeSlot(1, iv, 0); b.PrependUOffsetTRelativeSlot(2, ov, 0)
            if oo is not None: b.PrependUint8Slot(3, ot, 0); b.PrependUOffsetTRelativeSlot(4, oo, 0)
            ops.append(b.EndObject())
        tv = tvec(tens); iv = ivec(s.inputs); ov = ivec(s.outputs); opv = tvec(ops); nm = b.CreateString("main")
        b.StartObject(5); b.PrependUOffsetTRelativeSlot(0, tv, 0); b.PrependUOffsetTRelativeSlot(1, iv, 0); b.PrependUOffsetTRelativeSlot(2, ov, 0); b.PrependUOffsetTRelativeSlot(3, opv, 0); b.PrependUOffsetTRelativeSlot(4, nm, 0); sg = b.EndObject()
        cv = tvec(codeoffs); sv = tvec([sg]); bv = tvec(bufs); ds = b.CreateString("audit")
        b.StartObject(5); b.PrependUint32Slot(0, 3, 0); b.PrependUOffsetTRelativeSlot(1, cv, 0); b.PrependUOffsetTRelativeSlot(2, sv, 0); b.PrependUOffsetTRelativeSlot(3, ds, 0); b.PrependUOffsetTRelativeSlot(4, bv, 0)
        root = b.EndObject(); b.Finish(root, file_identifier=b"TFL3")
        open(path, "wb").write(b.Output())
