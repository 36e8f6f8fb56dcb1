import json,glob,collections,sys
files=sys.argv[1:]
jobs={}; tasks=collections.defaultdict(list); stage2job={}
for f in files:
  for line in open(f):
    e=json.loads(line); ev=e['Event']
    if ev=='SparkListenerJobStart':
        jobs[e['Job ID']]={'start':e['Submission Time']}
        for s in e['Stage IDs']: stage2job[s]=e['Job ID']
    elif ev=='SparkListenerJobEnd': jobs[e['Job ID']]['end']=e['Completion Time']
    elif ev=='SparkListenerTaskEnd':
        ti=e['Task Info']; tm=e.get('Task Metrics',{})
        tasks[stage2job.get(e['Stage ID'])].append((ti['Launch Time'],ti['Finish Time'],tm.get('Executor Run Time',0),tm.get('Executor Deserialize Time',0),tm.get('Executor CPU Time',0)/1e6, tm.get('JVM GC Time',0)))
ids=sorted(jobs)[-15:]
prev_end=None
for j in ids:
    J=jobs[j]; T=sorted(tasks[j])
    wall=J['end']-J['start']
    first=T[0][0]-J['start']; last=J['end']-max(t[1] for t in T)
    busy=sum(t[1]-t[0] for t in T); run=sum(t[2] for t in T); des=sum(t[3] for t in T); cpu=sum(t[4] for t in T); gc=sum(t[5] for t in T)
    ends=sorted(t[1] for t in T)
    gap = J['start']-prev_end if prev_end else 0
    prev_end=J['end']
    print(f"job {j}: gap {gap} wall {wall}, ->first {first}, last-> {last}, tail {ends[-1]-ends[-2]}, busy {busy} run {run} cpu {cpu:.0f} deser {des} gc {gc}, idle {2*wall-busy} [{' '.join(str(t[1]-t[0]) for t in T)}]")
