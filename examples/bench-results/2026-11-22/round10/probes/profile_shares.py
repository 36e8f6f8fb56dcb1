# Round 10: shares of the async-profiler samples under FlashAttention, by OpenBLAS or the deepest kernel-package frame.
# python3 profile_shares.py FILE.collapsed
import collections,sys
leaf=collections.Counter(); n=0
for line in open(sys.argv[1]):
    st,c=line.rsplit(' ',1); c=int(c)
    fr=st.split(';')
    if not any('FlashAttention' in f for f in fr): continue
    if len(sys.argv)>2 and not any(sys.argv[2] in f for f in fr): continue
    n+=c
    top=fr[-1]
    if any('sgemm' in f.lower() or 'openblas' in f.lower() for f in fr):
        k='blas:'+top
    else:
        kf=[f for f in fr if 'sparkattention' in f]
        k='java:'+(kf[-1].split('.')[-1] if kf else top)+(' <'+top+'>' if 'sparkattention' not in top else '')
    leaf[k]+=c
print('kernel samples',n)
for k,c in leaf.most_common(25): print(f'{100*c/n:5.1f}% {k}')
