import collections,sys
c=collections.Counter(); tot=0
for line in open(sys.argv[1]):
    st,_,n=line.rstrip().rpartition(' '); n=int(n)
    if 'Executor$TaskRunner.run' not in st: continue
    if 'RandomMatrix' in st: c['gen']+=n; continue
    tot+=n
    if 'FlashAttention' in st: k='kernel'
    elif 'checkFinite' in st: k='checkFinite'
    elif 'MatrixType.decode' in st: k='decode'
    elif 'StageJob.encode' in st: k='encode'
    elif 'OutputChecksum' in st: k='checksum'
    elif 'Attention.compute' in st: k='compute-alloc'
    elif 'StageJob' in st or 'BatchRowFunction' in st: k='stagejob-other'
    elif 'InMemory' in st or 'ColumnAccessor' in st or 'CachedBatch' in st or 'copyMemory' in st: k='cache-read'
    else: k='other:'+ ';'.join(st.split(';')[-2:])[:150]
    c[k]+=n
print('task total (excl gen)',tot)
for k,v in c.most_common(25): print(v, round(100*v/tot,1), k)
