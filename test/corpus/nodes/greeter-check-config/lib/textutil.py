"""Text helpers shared by the node's components."""


def sentence(greeting, name, formal=False):
    if formal:
        return "{}, {}.".format(greeting, name)
    return "{} {}!".format(greeting.lower(), name.split()[0])
