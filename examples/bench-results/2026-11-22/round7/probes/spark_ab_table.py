import sys,json,re,collections
for f in sys.argv[1:]:
    print('==',f)
    passes=collections.defaultdict(dict); cur=None
    for line in open(f):
        if line.startswith('#'):
            m=re.match(r'# (\w+) (\w+) (\d+)',line); cur=(int(m.group(3)),m.group(1),m.group(2)); continue
        side,kind,js=line.split(' ',2); d=json.loads(js)
        passes[cur[0]][(side,kind)]=d['median_ms']
    for i in sorted(passes):
        p=passes[i]
        if ('old','kernel') not in p or ('new','kernel') not in p: print(i,p); continue
        ko,kn,so,sn=p[('old','kernel')],p[('new','kernel')],p[('old','spark')],p[('new','spark')]
        print(i, 'spark old %.0f new %.0f (new faster %.2fx) | kernel old %.0f new %.0f (new faster %.2fx) | spark/kernel, each side its own kernel: old %.2f new %.2f' % (so, sn, so/sn, ko, kn, ko/kn, ko/so, kn/sn))
