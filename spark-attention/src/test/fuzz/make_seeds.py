#!/usr/bin/env python3
"""Writes the fuzz tests' checked-in inputs (Jazzer's regression inputs) from the small fixtures.

Run from the repository root:  python3 spark-attention/src/test/fuzz/make_seeds.py
Each reader gets real files, truncated copies and hand-edited variants; the rows' fuzz tests get
JSON lines. Findings that Jazzer writes into the same directories are kept beside these.
"""
import json
import os
import struct

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
FIXTURES = os.path.join(ROOT, 'resources', 'fixtures')
INPUTS = os.path.join(ROOT, 'resources', 'io', 'sparkattention')


def out_dir(package, test, method):
    d = os.path.join(INPUTS, package, test + 'Inputs', method)
    os.makedirs(d, exist_ok=True)
    return d


def write(d, name, data):
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data if isinstance(data, bytes) else data.encode('utf-8'))


def fixture(sub, name):
    with open(os.path.join(FIXTURES, sub, name), 'rb') as f:
        return f.read()


def safetensors(entries, metadata=None, pad=0):
    """entries: list of (name, dtype, shape, raw bytes); offsets laid out in order."""
    header, data, offset = {}, b'', 0
    for name, dtype, shape, raw in entries:
        header[name] = {'dtype': dtype, 'shape': shape, 'data_offsets': [offset, offset + len(raw)]}
        data += raw
        offset += len(raw)
    if metadata is not None:
        header['__metadata__'] = metadata
    h = json.dumps(header, separators=(',', ':')).encode() + b' ' * pad
    return struct.pack('<Q', len(h)) + h + data


def every_dtype():
    return safetensors([
        ('bool', 'BOOL', [3], bytes([0, 1, 1])),
        ('u8', 'U8', [2], bytes([0, 255])),
        ('i8', 'I8', [2], bytes([0x80, 0x7f])),
        ('f8', 'F8_E4M3', [1], bytes([0x38])),
        ('i16', 'I16', [1], struct.pack('<h', -2)),
        ('u16', 'U16', [1], struct.pack('<H', 65535)),
        ('f16', 'F16', [2], struct.pack('<HH', 0x3c00, 0x7c00)),
        ('bf16', 'BF16', [1], struct.pack('<H', 0x3f80)),
        ('i32', 'I32', [1], struct.pack('<i', -7)),
        ('u32', 'U32', [1], struct.pack('<I', 2 ** 32 - 1)),
        ('f32', 'F32', [2, 1], struct.pack('<ff', 1.5, float('nan'))),
        ('f64', 'F64', [1], struct.pack('<d', 1e300)),
        ('i64', 'I64', [1], struct.pack('<q', -(2 ** 63))),
        ('u64', 'U64', [1], struct.pack('<Q', 2 ** 63 + 1)),
        ('scalar', 'F32', [], struct.pack('<f', 2.0)),
        ('empty', 'F32', [0, 4], b''),
    ], metadata={'format': 'pt'})


def safetensors_seeds():
    d = out_dir('io', 'SafeTensorsFuzzTest', 'anyBytesOpenAndReadOrAreRefusedNamingTheSource')
    single = fixture('pytorch', 'mha_single_head.safetensors')
    write(d, 'mha_single_head', single)
    write(d, 'sdpa_seed_plain', fixture('pytorch', 'sdpa_seed_plain.safetensors'))
    write(d, 'every_dtype', every_dtype())
    write(d, 'truncated_length', single[:5])
    write(d, 'truncated_header', single[:8 + 40])
    write(d, 'truncated_data', single[:len(single) - 3])
    write(d, 'header_length_huge', struct.pack('<Q', 2 ** 63 + 5) + single[8:200])
    write(d, 'trailing_byte', single + b'\0')
    write(d, 'bool_byte_2', safetensors([('b', 'BOOL', [2], bytes([1, 2]))]))
    write(d, 'shape_overflow', safetensors([('x', 'F64', [2 ** 40, 2 ** 40], b'')]))
    write(d, 'overlap', b''.join([struct.pack('<Q', 92),
                                  b'{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},'
                                  b'"b":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}}', b'\0' * 4]))
    write(d, 'not_json', struct.pack('<Q', 6) + b'{"a":[')


def npy(descr, shape, data, version=1, fortran=False):
    dims = '(' + ', '.join(str(x) for x in shape) + (',)' if len(shape) == 1 else ')')
    text = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, 'True' if fortran else 'False', dims)
    pre = 10 if version == 1 else 12
    total = (pre + len(text) + 1 + 63) // 64 * 64
    header = (text + ' ' * (total - pre - len(text) - 1) + '\n').encode('latin-1' if version < 3 else 'utf-8')
    length = struct.pack('<H', len(header)) if version == 1 else struct.pack('<I', len(header))
    return b'\x93NUMPY' + bytes([version, 0]) + length + header + data


def npy_seeds():
    d = out_dir('io', 'NpyFuzzTest', 'anyBytesReadAsAFloatArrayOrAreRefusedNamingTheSource')
    for name in sorted(os.listdir(os.path.join(FIXTURES, 'npy'))):
        if name.endswith('.npy'):
            write(d, name[:-4], fixture('npy', name))
    f4 = fixture('npy', 'f4_3x4.npy')
    write(d, 'truncated_preamble', f4[:9])
    write(d, 'truncated_data', f4[:len(f4) - 1])
    write(d, 'header_length_past_end', f4[:8] + struct.pack('<H', 65535) + f4[10:])
    write(d, 'v2_header_length_huge', b'\x93NUMPY\x02\x00' + struct.pack('<I', 2 ** 32 - 1) + f4[10:])
    write(d, 'shape_huge_zero', npy('<f4', [10 ** 18, 0], b''))
    write(d, 'shape_overflow', npy('<f8', [2 ** 62, 4], b''))
    write(d, 'shape_negative', npy('<f4', [-1], b''))
    write(d, 'nested_deep', b'\x93NUMPY\x01\x00' + struct.pack('<H', 40) + b'(' * 39 + b'\n')
    write(d, 'v3_utf8', npy('<f4', [1], struct.pack('<f', 1.0), version=3))


def state_dict_seeds():
    mha = out_dir('io', 'StateDictFuzzTest', 'multiHeadAttentionLoadsOrRefusesNamingTheTensor')
    for name in ['mha_single_head', 'mha_no_bias', 'mha_cross_kdim_vdim']:
        write(mha, name, fixture('pytorch', name + '.safetensors'))
    e = 4
    f32 = lambda n: struct.pack('<%df' % n, *([0.25] * n))
    write(mha, 'packed_3e_by_e_no_prefix', safetensors([
        ('in_proj_weight', 'F32', [3 * e, e], f32(3 * e * e)),
        ('out_proj.weight', 'F16', [e, e], b'\0\x3c' * (e * e))]))
    write(mha, 'packed_and_separate', safetensors([
        ('in_proj_weight', 'F32', [3, 1], f32(3)),
        ('q_proj_weight', 'F32', [1, 1], f32(1))]))
    write(mha, 'bias_kv', safetensors([('bias_k', 'F32', [1], f32(1))]))
    cls = out_dir('io', 'StateDictFuzzTest', 'classifierLoadsOrRefusesNamingTheTensor')
    for name in ['cls_first_noresidual_gd', 'cls_causal_last']:
        write(cls, name, fixture('training', name + '.safetensors'))
    # A 1x20000 classifier.weight alone: E = 20000 asks for a 6.4 GB parameter vector.
    write(cls, 'wide_classifier_weight_alone', safetensors([('classifier.weight', 'U8', [1, 20000],
                                                              bytes(20000))]))


def json_seeds():
    d = out_dir('ml', 'StageRowsFuzzTest', 'jsonLinesGoThroughTheStagesOrFailWithRowDataException')
    rows = [
        {'query': [[0.5, -1.0], [2.0, 0.25]]},
        {'query': [[1, 2, 3, 4]], 'key': [[1, 0, 0, 1], [0, 1, 1, 0]], 'value': [[1, 2, 3, 4], [5, 6, 7, 8]],
         'key_length': 1, 'attn_mask': [[True, False]], 'attn_bias': [[0.0, -1e30]]},
        {'query': [], 'key': [], 'value': []},
        {'query': [[1, 2], [3]]},
        {'query': [[1, 2], None]},
        {'query': [[1, None]]},
        {'query': [[1, 2]], 'key_length': -1},
        {'query': [[1, 2]], 'key_length': 9223372036854775807},
        {'query': [[1, 2]], 'attn_mask': [[True], [False]]},
        {'query': [[1, 2, 3, 4]], 'attn_bias': [[[0.0]], [[1.0]]]},
        {'query': [[1, 2, 3, 4]], 'attn_mask': [[[True]], [[False]]]},
        {'query': [[1, 2]], 'key': [[1, 2, 3]], 'value': [[1]]},
    ]
    for i, row in enumerate(rows):
        write(d, 'row_%02d' % i, json.dumps(row))
    write(d, 'nan_and_infinity', '{"query": [[NaN, Infinity], [-Infinity, 1e39]]}')
    write(d, 'not_json', '{"query": [[1, 2]')
    write(d, 'strings', '{"query": [["a", "b"]]}')


def catalyst_seeds():
    """Jazzer's FuzzedDataProvider reads any bytes; a few fixed random ones start the corpus."""
    import random
    d = out_dir('ml', 'StageRowsFuzzTest', 'catalystRowsGoThroughTheStagesOrFailWithRowDataException')
    rng = random.Random(23)
    for n in [16, 64, 256, 1024, 4096]:
        write(d, 'random_%d' % n, bytes(rng.randrange(256) for _ in range(n)))


def main():
    safetensors_seeds()
    npy_seeds()
    state_dict_seeds()
    json_seeds()
    catalyst_seeds()


if __name__ == '__main__':
    main()
