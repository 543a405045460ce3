/* The problem class of a run: argv[1] if given (one letter, any case),
 * else the class compiled in with -DCLASS=<letter>, else S. */
#ifndef NPB_NPBCLASS_H
#define NPB_NPBCLASS_H

#include <ctype.h>

#define NPB_STR2(x) #x
#define NPB_STR(x) NPB_STR2(x)
#ifdef CLASS
#define NPB_DEFAULT_CLASS (NPB_STR(CLASS)[0])
#else
#define NPB_DEFAULT_CLASS 'S'
#endif

/* Returns the upper-case class letter, or 0 when argv[1] is not one
 * letter. *from_argv tells where it came from. */
static inline char npb_class(int argc, char **argv, int *from_argv)
{
    *from_argv = argc > 1;
    if (argc <= 1)
        return NPB_DEFAULT_CLASS;
    if (argv[1][0] == '\0' || argv[1][1] != '\0')
        return 0;
    return (char)toupper((unsigned char)argv[1][0]);
}

#endif
