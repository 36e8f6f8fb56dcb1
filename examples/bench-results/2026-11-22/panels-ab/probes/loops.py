import re,sys
lines=[l for l in open(sys.argv[1]) if re.match(r'\s+[0-9a-f]+:\t',l)]
ins=[]
for l in lines:
    p=l.split('\t')
    if len(p)>=3: ins.append((int(p[0].strip()[:-1],16),p[2].strip()))
seen=set()
for i,(a,t) in enumerate(ins):
    m=re.match(r'j\w+\s+0x([0-9a-f]+)',t)
    if m:
        tgt=int(m.group(1),16)
        if tgt<a:
            body=[x for x in ins if tgt<=x[0]<=a]
            f=sum('vfmadd' in x[1] for x in body)
            if f and len(body)<80:
                print(hex(tgt),len(body),'instr',f,'fma','spills',sum('rsp' in x[1] for x in body), 'bc', sum('vbroadcast' in x[1] for x in body))
