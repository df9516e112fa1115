from torch.utils.data.datapipes.gen_pyi import gen_from_template, materialize_lines


def render(lines, out_dir, replacements):
    text = materialize_lines(lines, 4)  # expect
    gen_from_template(out_dir, "a.pyi.in", "a.pyi", replacements)  # expect
    return text
