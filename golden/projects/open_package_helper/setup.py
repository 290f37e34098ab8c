"""The project is installable: code nobody handed us may `import sim` and call its functions eagerly."""
from setuptools import setup

setup(name="sim", version="0.1", packages=["sim"])
