import numpy as np, re, sys, time, json
from specdefects.validator.data import load_validator
from specdefects.validator.hybrid import HybridModel
from specdefects.validator.model import LABELS
from sklearn.metrics import matthews_corrcoef, f1_score
d = load_validator("out/spec-defects")
def norm(t):  # layout-blind view
    return re.sub(r"\s+", " ", t).strip()
def prep(split, variant):
    r = d[split]; T=list(r["text"]); L=list(r["label"]); U=list(r["uid"]); B=list(r["benchmark"])
    if "norm" in variant:
        T=[norm(t) for t in T]
        if split=="train":
            clean={u:t for t,l,u in zip(T,L,U) if l=="clean"}
            keep=[i for i in range(len(T)) if L[i]=="clean" or T[i]!=clean.get(U[i])]
            T,L,U,B=[[x[i] for i in keep] for x in (T,L,U,B)]
    return T,L,U,B
def spec(P,L,B,b,thr):
    idx=[i for i in range(len(L)) if L[i]=="clean" and B[i]==b]
    flag=(1-P[idx,0])>thr
    return 1-flag.mean()
def decide(P,thr):
    pred=P.argmax(1).copy()
    pred[(1-P[:,0])<=thr]=0
    return pred
variant=sys.argv[1]; seed=int(sys.argv[2]) if len(sys.argv)>2 else 42
T,L,U,B=prep("train",variant)
t0=time.time()
m=HybridModel(seed=seed, balanced="bal" in variant).fit(T,L,U)
fit=time.time()-t0
res={"variant":variant,"seed":seed,"fit_s":round(fit,1),"n_train":len(T)}
Tv,Lv,Uv,Bv=prep("validation",variant); Pv=m.predict_proba(Tv)
Tt,Lt,Ut,Bt=prep("test",variant); Pt=m.predict_proba(Tt)
# threshold on validation: smallest thr s.t. val clean spec >= .95 (pooled)
yv=np.array([LABELS.index(l) for l in Lv]); yt=np.array([LABELS.index(l) for l in Lt])
cands=np.linspace(0.5,0.995,100)
thr=next((c for c in cands if (1-(1-Pv[yv==0,0]>c).mean())>=0.95), 0.995)
for name,th in (("argmax",None),("thr",thr)):
    pred=Pt.argmax(1) if th is None else decide(Pt,th)
    tt=0.0 if th is None else th
    res[name]={"thr":round(float(tt),3),"mcc":round(matthews_corrcoef(yt,pred),4),
      "f1":dict(zip(LABELS,np.round(f1_score(yt,pred,average=None),3).tolist())),
      "spec_he":round(float((pred[(yt==0)&(np.array(Bt)=="humaneval")]==0).mean()),3),
      "spec_mbpp":round(float((pred[(yt==0)&(np.array(Bt)=="mbpp")]==0).mean()),3)}
    # all HE originals (all splits)
    allT=[];
    for s in ("train","validation","test"):
        r=d[s]; allT+=[ (norm(t) if "norm" in variant else t) for t,l,b in zip(r["text"],r["label"],r["benchmark"]) if l=="clean" and b=="humaneval"]
    Pa=m.predict_proba(allT); pa=Pa.argmax(1) if th is None else decide(Pa,th)
    res[name]["he_all_flagged"]=round(float((pa!=0).mean()),3)
print(json.dumps(res))
