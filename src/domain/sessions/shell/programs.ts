/** The shell classifier's program table (../shell.ts): each program name the rule that judges it. */
import { EGRESS, LOCAL, UPLOAD } from "./effects.js"
import {
  type Rule,
  always,
  awk,
  bun,
  bundle,
  cargo,
  cloud,
  command,
  compose,
  conda,
  curl,
  deno,
  docker,
  env,
  evalRule,
  fd,
  find,
  gem,
  gh,
  git,
  go,
  helm,
  httpie,
  kubectl,
  meson,
  nameSet,
  nice,
  npm,
  npxLike,
  openssl,
  packageManager,
  pacman,
  pip,
  pipx,
  playwright,
  pnpm,
  poetry,
  python,
  remoteCopy,
  rustup,
  shellProgram,
  sudo,
  terraform,
  timeout,
  twine,
  uv,
  watch,
  wget,
  wrapper,
  yarn
} from "./rules.js"

export const LOCAL_PROGRAMS =
  // files and text
  "ls cat head tail grep egrep fgrep rg ag sed wc sort uniq cut tr diff diff3 sdiff cmp comm paste join " +
  "column nl tee echo printf mkdir rmdir rm cp mv touch chmod chown chgrp ln readlink realpath basename " +
  "dirname stat file du df tree less more exa eza lsd bat tar zip unzip gzip gunzip zcat bzip2 bunzip2 xz " +
  "unxz zstd unzstd lz4 7z cpio jq yq sqlite3 patch iconv dos2unix unix2dos strings xxd od hexdump base64 " +
  "base32 md5sum sha1sum sha224sum sha256sum sha384sum sha512sum shasum b2sum cksum sum split csplit fold fmt " +
  "pr expand unexpand rev tac shuf truncate mktemp install dd sync shred seq yes bc dc expr factor numfmt cal " +
  // shell builtins and keywords whose words are data
  "cd pwd pushd popd dirs export unset set shopt alias unalias declare typeset local readonly " +
  "read exit return shift getopts hash trap wait jobs fg bg disown history let break continue " +
  "true false test [ [[ : for select case function type which whereis printenv ulimit umask " +
  // the system, read or signalled locally
  "sleep date whoami id uname hostname uptime free ps pgrep pkill kill " +
  "killall lsof locale nproc arch getconf tty groups tput clear reset stty " +
  // build, test, lint, interpreters
  "make gmake cmake ninja tsc eslint prettier vitest jest mocha ava biome esbuild vite webpack rollup " +
  "tsx ts-node node pytest py.test mypy ruff black isort flake8 pylint pyright coverage ruby rspec rake " +
  "irb perl php lua java javac jar gcc g++ cc c++ clang clang++ ld ar nm objdump strip gdb lldb valgrind " +
  "rustc rustfmt gofmt goimports golangci-lint staticcheck shellcheck clang-format ssh-keygen ssh-add"

export const PROGRAMS: ReadonlyMap<string, Rule> = (() => {
  const table = new Map<string, Rule>()
  const add = (names: string, rule: Rule) => {
    for (const n of nameSet(names)) table.set(n, rule)
  }
  add(LOCAL_PROGRAMS, always(LOCAL))
  add("python python3 python2 py", python)
  add("awk gawk mawk nawk", awk)
  add("find", find)
  add("fd fdfind", fd)
  add("sh bash zsh dash ksh mksh fish", shellProgram)
  add("eval", evalRule)
  add("sudo doas", sudo)
  add("env", env)
  add("time", wrapper("-o -f --output --format"))
  add("nice", nice)
  add("nohup builtin", wrapper(""))
  add("timeout", timeout)
  add(
    "xargs",
    wrapper(
      "-I -n -L -P -d -E -s -a --arg-file --delimiter --max-args " +
        "--max-procs --max-lines --eof --max-chars --process-slot-var"
    )
  )
  add("exec", wrapper("-a"))
  add("command", command)
  add("stdbuf", wrapper("-i -o -e"))
  add("setsid", wrapper(""))
  add("ionice", wrapper("-c -n --class --classdata"))
  add("watch", watch)
  add("busybox", (args, ctx) => (args.length === 0 ? LOCAL : ctx.argv(args)))
  add("curl", curl)
  add("wget", wget)
  add("http https xh xhs", httpie)
  add(
    "ssh sftp ftp lftp tftp nc ncat netcat socat telnet mosh ssh-copy-id psql mysql mongo mongosh redis-cli",
    always(UPLOAD)
  )
  add("scp", remoteCopy("-P -i -o -F -c -l -S -J"))
  add(
    "rsync",
    remoteCopy(
      "-e --rsh --exclude --include --filter -f --files-from --exclude-from --include-from " +
        "--port --password-file --log-file -T --temp-dir --backup-dir --link-dest --compare-dest " +
        "--copy-dest --partial-dir --chmod --chown -M --remote-option --out-format --bwlimit " +
        "--timeout --contimeout --max-size --min-size --suffix --info --debug"
    )
  )
  add(
    "ping ping6 traceroute tracepath mtr dig nslookup host whois " +
      "nmap arping ssh-keyscan aria2c yt-dlp youtube-dl lynx w3m links",
    always(EGRESS)
  )
  add("npx pnpx bunx", npxLike)
  add("uvx", always(EGRESS))
  add("openssl", openssl)
  add("gh glab hub", gh)
  add("aws gcloud gsutil az doctl heroku netlify fly flyctl firebase wrangler pulumi rclone s3cmd", cloud())
  add("vercel now", cloud(UPLOAD))
  add("kubectl oc", kubectl)
  add("helm", helm)
  add("terraform tofu", terraform)
  add("git", git)
  add("go", go)
  add("cargo", cargo)
  add("rustup", rustup)
  add("npm", npm)
  add("pnpm", pnpm)
  add("yarn", yarn)
  add("bun", bun)
  add("pip pip3", pip)
  add("uv", uv)
  add("pipx", pipx)
  add("poetry", poetry)
  add("conda mamba micromamba", conda)
  add("twine", twine)
  add("gem", gem)
  add("bundle bundler", bundle)
  add("docker podman nerdctl", docker)
  add("docker-compose podman-compose", compose)
  add(
    "apt apt-get aptitude",
    packageManager(
      "remove purge autoremove autoclean clean list show policy search depends rdepends showsrc",
      "install update upgrade dist-upgrade full-upgrade download source build-dep changelog reinstall",
      "-o -c -t --target-release"
    )
  )
  add(
    "yum dnf microdnf",
    packageManager(
      "remove erase autoremove clean history",
      "install update upgrade downgrade reinstall makecache search " +
        "info list download check-update distro-sync groupinstall"
    )
  )
  add("apk", packageManager("del info list search version stats audit", "add update upgrade fetch"))
  add(
    "brew",
    packageManager(
      "list ls config uninstall remove rm cleanup link unlink pin unpin leaves deps",
      "install reinstall upgrade update fetch tap search info outdated bundle doctor"
    )
  )
  add("pacman", pacman)
  add("zypper", packageManager("remove rm", "install in update up refresh ref dist-upgrade dup source-install si"))
  add("snap", packageManager("list remove", "install refresh download find info"))
  add("port", packageManager("list installed uninstall", "install upgrade selfupdate sync fetch"))
  add("deno", deno)
  add("meson", meson)
  add("playwright", playwright)
  return table
})()
