#!/bin/sh
# Remove build artifacts older than a week.
__version__="0.4.0"
__category__="maintenance"

find build -mtime +7 -delete
