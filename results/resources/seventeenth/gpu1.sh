#!/bin/bash
# h2h as shipped (orig) against h2h with the harness's addresses not kept across the loop and packed words coalesced (fair), alternating.
export PYTHONUNBUFFERED=1
W=out/h2h-work; L=out/loc
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt
python3 -c "import triton; print('triton', triton.__version__)" >> $OUT/gpu.txt
for r in 1 2; do
  for v in orig fair; do
    rm -rf /tmp/$v; mkdir -p /tmp/$v; cp -r $W/. /tmp/$v/
    s=$(date +%s)
    if [ $v = orig ]; then python3 $L/h2h.py /tmp/$v $OUT/${v}$r.jsonl > /dev/null 2>>$OUT/log.txt
    else H2H_VAR=fair python3 $L/h2h_var.py /tmp/$v $OUT/${v}$r.jsonl > /dev/null 2>>$OUT/log.txt; fi
    echo "$v$r $(( $(date +%s) - s )) s" >> $OUT/log.txt
  done
done
