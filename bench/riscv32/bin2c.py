import sys
inp, ref, out = sys.argv[1:4]
def arr(name, b):
    body = ",".join(str(x) for x in b)
    return f"static const unsigned char {name}[{len(b)}] = {{{body}}};\n"
with open(out, "w") as f:
    f.write(arr("input_data", open(inp, "rb").read()))
    f.write(arr("ref_data", open(ref, "rb").read()))
