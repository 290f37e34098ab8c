"""The project is installable: code nobody handed us may `import kernels`."""
from setuptools import setup

setup(name="kernels", version="0.1", packages=["kernels"])
