/* The sandbox ("pause") container of the real node's Pods: it holds the Pod's namespaces, reaps
 * the zombies that share its PID namespace, and exits on SIGTERM or SIGINT. Built static with
 * gcc by build-node.sh, so its image needs nothing else (the upstream image cannot be pulled here).
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void quit(int signo) { _exit(signo == SIGTERM || signo == SIGINT ? 0 : 1); }

static void reap(int signo) {
  (void)signo;
  while (waitpid(-1, NULL, WNOHANG) > 0) {
  }
}

int main(void) {
  struct sigaction on_quit = {.sa_handler = quit};
  struct sigaction on_child = {.sa_handler = reap, .sa_flags = SA_NOCLDSTOP};
  if (sigaction(SIGTERM, &on_quit, NULL) < 0 || sigaction(SIGINT, &on_quit, NULL) < 0 ||
      sigaction(SIGCHLD, &on_child, NULL) < 0) {
    return 1;
  }
  for (;;) {
    pause();
  }
}
