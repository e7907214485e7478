/* A program that never calls bsp_begin.
 * expect: fail "exited with status 0 before bsp_begin" */
int main(void) { return 0; }
