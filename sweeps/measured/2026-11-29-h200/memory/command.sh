set -u
mkdir -p $OUT
S=sweeps/gpu/memory/step_memory.py
for conf in "" "expandable_segments:True"; do
  for spec in "--layers 4 --micro-batch 2 --seq 2048 --ac yes" "--layers 4 --micro-batch 2 --seq 2048 --ac no" "--layers 8 --micro-batch 4 --seq 4096 --ac no" "--layers 8 --micro-batch 1 --seq 8192 --ac yes"; do
    PYTORCH_CUDA_ALLOC_CONF=$conf timeout 150 python3 $S --model qwen2.5-7b $spec --steps 3 2>>$OUT/err.txt | tee -a $OUT/step_memory.jsonl
  done
done
nvidia-smi --query-gpu=name,memory.total --format=csv >> $OUT/gpu.txt
