# Round 11: shares of the async-profiler samples under FlashAttention by the deepest kernel-package method.
# python3 profile_by_method.py FILE.collapsed
import collections,sys
c=collections.Counter(); n=0
for line in open(sys.argv[1]):
    st,k=line.rsplit(' ',1); k=int(k); fr=st.split(';')
    if not any('FlashAttention' in f for f in fr): continue
    n+=k
    kf=[f for f in fr if 'sparkattention' in f]
    top=fr[-1]
    key=kf[-1].split('.')[-1] if kf else top
    if 'arraycopy' in top: key+=' (arraycopy)'
    c[key]+=k
print('samples',n)
for key,v in c.most_common(20): print(f'{100*v/n:5.1f}% {key}')
