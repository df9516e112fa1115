import torch


class CompileProfiler:
    def report(self):
        return ""


def profile(fn, x):
    explanation = torch._dynamo.explain(fn)(x)
    return explanation.graph_break_count, CompileProfiler().report()
