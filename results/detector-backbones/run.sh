#!/bin/bash
# detector backbones on the HumanEval rows (one seed), each trained then evaluated; a row that exists is skipped
cd "$(dirname "$0")/../.."
B=${1:-out/backbones}; mkdir -p $B
row() {  # name, train args...
  name=$1; shift
  if [ ! -f $B/$name/eval/evaluation.json ]; then
    /usr/bin/time -f "$name train wall %e s" .venv/bin/specdefects validator train --data out/spec-defects --benchmarks humaneval \
      --seeds 42 --no-publish --out $B/$name "$@" --json > $B/$name.train.json 2> $B/$name.train.err
    tail -1 $B/$name.train.err
    /usr/bin/time -f "$name evaluate wall %e s" .venv/bin/specdefects validator evaluate --data out/spec-defects --benchmarks humaneval \
      --model $B/$name/model --out $B/$name/eval --no-tsne --no-tfidf --json > $B/$name.eval.json 2> $B/$name.eval.err
    tail -1 $B/$name.eval.err
  fi
}
row hybrid --regime hybrid
row minilm --regime probe --backbone minilm
row qwen05-probe --regime probe --backbone qwen2.5-coder-0.5b-instruct
row qwen15-probe --regime probe --backbone qwen2.5-coder-1.5b-instruct
row qwen05-lora --regime lora --backbone qwen2.5-coder-0.5b-instruct --epochs 2 --max-steps 60 --micro-batch-size 8
echo done
