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


def lora_model(shape, ctx):
    """The shape with random bf16 weights on the GPU, SDPA attention, and the benchmark's LoRA
    (r 8, alpha 16, every projection), with AdamW over the adapter: (model, optimizer)."""
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM

    cls, kw = SHAPES[shape]
    config = cls(**kw, max_position_embeddings=max(4096, ctx))
    with torch.device("cuda"):
        model = AutoModelForCausalLM.from_config(config, attn_implementation="sdpa").to(torch.bfloat16)
    model = get_peft_model(model, LoraConfig(r=8, lora_alpha=16, lora_dropout=0.0,
                                             target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]))
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4)
    return model, opt
