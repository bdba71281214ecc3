"""What runs a solve: the disk cache, cost estimates, the layer scheduler, compiling ahead."""
