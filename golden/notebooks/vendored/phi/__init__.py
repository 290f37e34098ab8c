"""A copy of an old PhiFlow shipped inside the project (our stand-in, not PhiFlow's code): it shadows the
installed PhiFlow for every module here, so PhiFlow 3's renames do not apply."""
