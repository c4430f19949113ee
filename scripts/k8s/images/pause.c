/* The pod sandbox's process (the `pause` image): sleeps until told to stop. */
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

static void bye(int sig) {
  (void)sig;
  exit(0);
}

int main(void) {
  signal(SIGTERM, bye);
  signal(SIGINT, bye);
  for (;;) pause();
}
