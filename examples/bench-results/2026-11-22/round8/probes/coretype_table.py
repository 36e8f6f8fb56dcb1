import json, sys, statistics as st
rows=[json.loads(l) for f in sys.argv[1:] for l in open(f)]
by={}
for r in rows: by.setdefault((r['seq_len'],r['pass'],r['coretype']),{})[(r['mode'],r['causal'])]=r
pairs={}
for (n,p,ct),v in sorted(by.items()):
    kn=v[('kernel',False)]; on=v[('ort',False)]
    r=dict(ratio=kn['gflops']/on['gflops'], k=kn['gflops'], ort=on['gflops'])
    if ('kernel',True) in v:
        kc=v[('kernel',True)]; oc=v[('ort',True)]
        r.update(causal=kc['median_ms']/kn['median_ms'], cvo=oc['median_ms']/kc['median_ms'])
    pairs.setdefault((n,p),{})[ct]=r
for (n,p),d in sorted(pairs.items()):
    if 'Zen' in d and 'Haswell' in d:
        z,h=d['Zen'],d['Haswell']
        line='n=%d pass %d  kernel/ORT: Zen %.2f (%.1f/%.1f)  Haswell %.2f (%.1f/%.1f)  H÷Z %.2f'%(n,p,z['ratio'],z['k'],z['ort'],h['ratio'],h['k'],h['ort'],h['ratio']/z['ratio'])
        if 'causal' in z: line+='  | causal÷non Zen %.3f Haswell %.3f'%(z['causal'],h['causal'])
        print(line)
