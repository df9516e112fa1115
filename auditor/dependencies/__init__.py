"""The locked dependencies of a project, read from the package index without installing them:
what each one requires of the torch family (`requirements`), from its metadata (`metadata`)."""
