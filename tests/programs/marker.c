/* Creates the file named by argv[1] as soon as it starts (before MPI_Init),
 * so a test can tell whether any rank was spawned at all. */
#include <mpi.h>
#include "vtest.h"

int main(int argc, char **argv)
{
    if (argc > 1) {
        FILE *f = fopen(argv[1], "a");
        if (f)
            fclose(f);
    }
    MPI_Init(&argc, &argv);
    MPI_Finalize();
    return 0;
}
