from torch.nn.attention.varlen import varlen_attn


def attend(q, k, v, cu_q, cu_k, max_q, max_k, is_causal=True):
    window = (-1, 0) if is_causal else (-1, -1)
    return varlen_attn(q, k, v, cu_q, cu_k, max_q, max_k, window_size=window)
