#!/usr/bin/env python3
"""Line coverage of Sources/ from `llvm-cov export -summary-only` JSON: in all, and per module."""
import json,sys,collections
root=sys.argv[2]
d=json.load(open(sys.argv[1]))
tot=[0,0]; per=collections.defaultdict(lambda:[0,0])
for f in d['data'][0]['files']:
    fn=f['filename']
    if not fn.startswith(root+'/Sources/'): continue
    l=f['summary']['lines']
    tot[0]+=l['covered']; tot[1]+=l['count']
    mod=fn[len(root)+9:].split('/')[0]
    per[mod][0]+=l['covered']; per[mod][1]+=l['count']
print("total %d/%d = %.1f%%"%(tot[0],tot[1],100*tot[0]/tot[1]))
for m,(c,n) in sorted(per.items()): print("  %-16s %6d/%6d %5.1f%%"%(m,c,n,100*c/n if n else 0))
