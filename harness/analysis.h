/* analysis.h: placeholder */
