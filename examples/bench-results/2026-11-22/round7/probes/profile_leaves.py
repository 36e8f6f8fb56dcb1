import collections,sys
c=collections.Counter(); tot=0
for line in open(sys.argv[1]):
    st,_,n=line.rstrip().rpartition(' '); n=int(n)
    if 'FlashAttention' not in st: continue
    tot+=n
    fr=st.split(';')
    # find the innermost frame of interest
    k=None
    for f in reversed(fr):
        if 'sgemm' in f.lower() or 'libopenblas' in f: k='sgemm/openblas'; break
        if f.startswith('io/sparkattention') or f.startswith('io.sparkattention'):
            k=f.split('(')[0]; break
    if k is None: k='other:'+fr[-1][:80]
    # special: sgemm kernels native names
    if any(('sgemm' in f or 'SGEMM' in f or 'kernel' in f.lower() and 'blas' in f.lower()) for f in fr[-3:]): k='sgemm/openblas'
    c[k]+=n
print('total',tot)
for k,v in c.most_common(20): print(v, round(100*v/tot,1), k)
