#!/bin/sh
# run.py of this trial: the fourteenth pass's order_not_kept/run.py with the variants h (as emitted),
# q4, q3, q2 (fma.py's every 4th / 3rd / 2nd select) and ISETP counted; made and run from gpu/fma/
sed -e "s/VARS = sys.argv\[3\].split(',') if len(sys.argv) > 3 else \['h', 'o', 'l', 'e'\].*/VARS = sys.argv[3].split(',') if len(sys.argv) > 3 else ['h', 'q4', 'q3', 'q2']/" \
    -e "s/'MOV', 'IMAD'/'MOV', 'IMAD', 'ISETP'/" -e "s/ord.json/fma.json/" \
    -e 's/if ONLY and c\[.tag.\] not in ONLY: continue/if ONLY and ONLY != ["all"] and c["tag"] not in ONLY: continue/' \
    "$(dirname "$0")/../../fourteenth/order_not_kept/run.py" > run.py
