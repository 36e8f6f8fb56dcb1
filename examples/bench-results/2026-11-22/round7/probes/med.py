import sys,statistics
rows=[l.split() for l in sys.stdin if 'GFLOP' in l]
names=[rows[0][i] for i in range(0,len(rows[0])-1,2)]
for k,nm in enumerate(names):
    print(nm, round(statistics.median(float(r[2*k+1]) for r in rows),1), end='  ')
print()
