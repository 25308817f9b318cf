"""What stands in front of the function, as on AWS: its function URL, its S3 (with faults), S3's deliveries, ``emulate``."""
