import sys,re,collections
groups=collections.Counter(); task=collections.Counter(); tot=0; leaf=collections.Counter()
# Order matters: a stack goes to the first category it matches. Decoding is matched before the
# kernel because its NaN/±inf scan (NonFinite, VectorNonFinite) lives in the kernel package.
cats=[('decode','MatrixType'),('kernel','io/sparkattention/kernel/'),('cacheReader','ColumnarIterator|InMemoryRelation|columnar'),('encode','CatalystMatrices'),('checksum','OutputChecksum'),
 ('serialization','Serializ|ObjectInputStream|ObjectOutputStream|Kryo'),('gc','GC'),]
for fn in sys.argv[1:]:
  for line in open(fn):
    stack,n=line.rsplit(' ',1); n=int(n); tot+=n
    th=stack.split(';')[0]
    g=re.sub(r'\d+','N',th)[:45]
    groups[g]+=n
    if 'Executor task' in th:
        for c,p in cats:
            if re.search(p,stack): task[c]+=n; break
        else:
            task['other']+=n
            fr=stack.split(';')
            leaf[';'.join(f.split('(')[0][-60:] for f in fr[-3:])]+=n
print('total',tot)
for g,n in groups.most_common(12): print(f'{n/tot*100:6.1f}% {g}')
t=sum(task.values())
print('task threads',t)
for c,n in task.most_common(): print(f'{n/t*100:6.1f}% {c}')
for s,n in leaf.most_common(25): print(f'{n/t*100:6.2f}% {s}')
