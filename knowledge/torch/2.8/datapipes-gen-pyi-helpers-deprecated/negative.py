import string


def render(template, values):
    return string.Template(template).substitute(values)
