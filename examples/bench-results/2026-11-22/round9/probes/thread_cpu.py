import os,sys,time,collections,re
pid=sys.argv[1]; interval=float(sys.argv[2])
tck=os.sysconf('SC_CLK_TCK')
def snap():
    d=collections.Counter()
    try:
        for t in os.listdir(f'/proc/{pid}/task'):
            try:
                s=open(f'/proc/{pid}/task/{t}/stat').read()
            except Exception: continue
            name=s[s.index('(')+1:s.rindex(')')]
            f=s[s.rindex(')')+2:].split()
            cpu=(int(f[11])+int(f[12]))/tck
            g=re.sub(r'[\d#]+','N',name)
            d[g]+=cpu
    except FileNotFoundError: return None
    return d
prev=snap(); t0=time.time()
while True:
    time.sleep(interval)
    cur=snap()
    if cur is None: break
    delta={k:cur[k]-prev.get(k,0) for k in cur}
    tot=sum(delta.values())
    top=sorted(delta.items(),key=lambda x:-x[1])[:8]
    print(f"{time.time()-t0:6.1f} total {tot:5.2f} "+" | ".join(f"{k}:{v:.2f}" for k,v in top if v>0.02),flush=True)
    prev=cur
