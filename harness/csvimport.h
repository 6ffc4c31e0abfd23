/* csvimport.h: placeholder */
