from torch.nn.attention.varlen import varlen_attn


def attend(q, k, v, cu_q, cu_k, max_q, max_k):
    causal = varlen_attn(q, k, v, cu_q, cu_k, max_q, max_k, is_causal=True)  # expect
    both = varlen_attn(q, k, v, cu_q, cu_k, max_q, max_k, True)  # expect
    return causal, both
