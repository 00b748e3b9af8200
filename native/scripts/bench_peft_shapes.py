"""The model shapes of the CUDA benchmark on the PyTorch side (bench-peft.py, peft-fit.py):
the same configs as device-cuda.sh's `spec` table builds for Hone with make-model."""
from transformers import LlamaConfig, Qwen2Config, Qwen3Config

SHAPES = {
    "qwen2.5-0.5b": (Qwen2Config, dict(hidden_size=896, num_hidden_layers=24, num_attention_heads=14, num_key_value_heads=2,
                                       intermediate_size=4864, vocab_size=151936, tie_word_embeddings=True)),
    "llama-3.2-1b": (LlamaConfig, dict(hidden_size=2048, num_hidden_layers=16, num_attention_heads=32, num_key_value_heads=8,
                                       intermediate_size=8192, vocab_size=128256, tie_word_embeddings=True)),
    "qwen3-4b": (Qwen3Config, dict(hidden_size=2560, num_hidden_layers=36, num_attention_heads=32, num_key_value_heads=8,
                                   head_dim=128, intermediate_size=9728, vocab_size=151936, tie_word_embeddings=True)),
}
