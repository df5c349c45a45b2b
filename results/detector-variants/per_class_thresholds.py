import numpy as np, itertools, json
from specdefects.validator.data import load_validator
from specdefects.validator.hybrid import HybridDetector
from specdefects.validator.model import LABELS
from sklearn.metrics import matthews_corrcoef, f1_score
d = load_validator("out/spec-defects")
det = HybridDetector.load("specdefects/validator/default")
P={s:np.asarray(det.predict_proba(d[s]["text"])) for s in ("validation","test")}
Y={s:np.array([LABELS.index(l) for l in d[s]["label"]]) for s in P}
B={s:np.array(d[s]["benchmark"]) for s in P}
def dec(p,t):
    # flag class c if p[c]>=t[c]; among flagged take max p; else clean
    z=p[:,1:]/np.array(t)
    out=np.zeros(len(p),int)
    ok=(z>=1).any(1)
    out[ok]=1+z[ok].argmax(1)
    return out
grid=np.concatenate([np.linspace(0.3,0.95,14),[0.97,0.98,0.99,0.995,0.999]])
best=None
for t in itertools.product(grid,repeat=3):
    pv=dec(P["validation"],t); spec=(pv[Y["validation"]==0]==0).mean()
    if spec<0.95: continue
    m=matthews_corrcoef(Y["validation"],pv)
    if best is None or m>best[0]: best=(m,t)
m,t=best; print("val mcc",round(m,3),"t",t)
pt=dec(P["test"],t); yt=Y["test"]
print("test mcc",round(matthews_corrcoef(yt,pt),4),"f1",np.round(f1_score(yt,pt,average=None),3))
for b in ("humaneval","mbpp"): print(b,"spec",round((pt[(yt==0)&(B["test"]==b)]==0).mean(),3))
import json
rows=[json.loads(l) for l in open("specdefects/validator/real_descriptions.jsonl")]
pr=dec(np.asarray(det.predict_proba([r["text"] for r in rows])),t)
print("real sens",sum(p!=0 for p,r in zip(pr,rows) if r["label"]=="under-specified"),"spec",sum(p==0 for p,r in zip(pr,rows) if r["label"]=="well-specified"))
