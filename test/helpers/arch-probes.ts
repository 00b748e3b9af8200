/**
 * probe-arch settings of the architectures whose layouts several native tests train (the
 * architecture checks and the recomputation test): one spelling each.
 */
// Qwen3.5: 4 layers (delta-net, delta-net, delta-net, attention), 2 key heads tiled over 4 value heads of 16.
export const DELTA_NET_KV = 'block_count=4,ssm.conv_kernel=4,ssm.state_size=16,ssm.group_count=2,ssm.time_step_rank=4,ssm.inner_size=64';
export const DELTA_NET_TENSORS = ['--layer-tensors', 'attn_qkv.weight@0:1:2,attn_gate.weight@0:1:2'];
// Gemma 4: layers 0 and 2 windowed (3 positions) with heads of 8 rotating 8 at base 500, layer 1
// global with heads of 16; layer 2 computes no K and V and attends to layer 0's (shared_kv_layers=1),
// so layer 0's K/V gradients come through both; per-layer embeddings of 8; logits soft-capped.
export const GEMMA4_KV = 'attention.sliding_window=3,attention.key_length=16,attention.value_length=16,attention.key_length_swa=8,' +
  'attention.value_length_swa=8,rope.dimension_count=16,rope.dimension_count_swa=8,rope.freq_base_swa=500,' +
  'embedding_length_per_layer_input=8,final_logit_softcapping=3.0';
