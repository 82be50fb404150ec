"""Crashes inside git steps: clones of 20,000 and 60,000 files, hosts gone."""
