"""Tests of shipping: change reports, approved pushes, superseded pushes."""
