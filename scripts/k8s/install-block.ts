/**
 * The README's "Install on Kubernetes" commands, as the k8s test runs them: the ```sh block
 * right after the `<!-- install-on-kubernetes` marker, without its `docker` lines (the test
 * builds and imports the image itself: image names aside, the commands are the reader's).
 */
export const INSTALL_MARKER = '<!-- install-on-kubernetes';

export function installBlock(readme: string): string {
  const at = readme.indexOf(INSTALL_MARKER);
  if (at < 0) throw new Error(`README.md has no ${INSTALL_MARKER} marker`);
  const fence = /```sh\n([\s\S]*?)\n```/.exec(readme.slice(at));
  if (!fence?.[1]) throw new Error('no ```sh block after the install marker in README.md');
  // A command spans its continuation lines (a trailing backslash, or an open quote).
  const commands: string[] = [];
  let current = '';
  for (const line of fence[1].split('\n')) {
    current = current ? `${current}\n${line}` : line;
    const quotes = (current.match(/"/g) ?? []).length;
    if (line.endsWith('\\') || quotes % 2 === 1) continue;
    commands.push(current);
    current = '';
  }
  if (current) commands.push(current);
  return commands.filter((c) => !/^docker\s/.test(c.trimStart())).join('\n');
}
