/* MPI_Comm_split with various colors and keys, point-to-point on the new
 * communicators, nested splits.
 *
 * usage: comm_split
 * Lines (per rank R of MPI_COMM_WORLD, for each test T):
 *   split test=T rank=R newrank=X newsize=N     (X = -1, N = 0: MPI_COMM_NULL)
 *   ring test=T rank=R got=W src=S
 *     W = world rank received from the left neighbour in the new
 *     communicator, S = MPI_SOURCE of that receive (a rank of the new one).
 * Tests:
 *   A: color = R % 3, key = size - R (reverse order within a color)
 *   B: color = 0 for even R, MPI_UNDEFINED for odd R, key = 0 (parent order)
 *   C: split of A: color = (rank in A) % 2, key = rank in A
 *   D: color = R / 4, key = (R % 4) / 2 (ties broken by parent rank) */
#include <mpi.h>
#include "vtest.h"

static int world_rank;

/* Report comm and pass world ranks around it. */
static void report(const char *test, MPI_Comm c)
{
    if (c == MPI_COMM_NULL) {
        printf("split test=%s rank=%d newrank=-1 newsize=0\n", test, world_rank);
        return;
    }
    int r, n;
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &n);
    printf("split test=%s rank=%d newrank=%d newsize=%d\n", test, world_rank, r, n);
    int got = -5;
    MPI_Status st;
    MPI_Sendrecv(&world_rank, 1, MPI_INT, (r + 1) % n, 3, &got, 1, MPI_INT, (r + n - 1) % n, 3,
                 c, &st);
    printf("ring test=%s rank=%d got=%d src=%d\n", test, world_rank, got, st.MPI_SOURCE);
}

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Comm a, b, c, d;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank % 3, size - world_rank, &a);
    report("A", a);
    MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2 ? MPI_UNDEFINED : 0, 0, &b);
    report("B", b);
    int ra;
    MPI_Comm_rank(a, &ra);
    MPI_Comm_split(a, ra % 2, ra, &c);
    report("C", c);
    MPI_Comm_split(MPI_COMM_WORLD, world_rank / 4, (world_rank % 4) / 2, &d);
    report("D", d);

    MPI_Comm_free(&c);
    MPI_Comm_free(&a);
    if (b != MPI_COMM_NULL)
        MPI_Comm_free(&b);
    MPI_Comm_free(&d);
    if (a != MPI_COMM_NULL || c != MPI_COMM_NULL || d != MPI_COMM_NULL)
        printf("FAIL rank=%d MPI_Comm_free did not set MPI_COMM_NULL\n", world_rank);
    MPI_Finalize();
    return 0;
}
