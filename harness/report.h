/* report.h: placeholder */
