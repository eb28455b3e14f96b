/**
 * Completion scripts generated from the command tree (tree.ts). Pure: a tree in, a
 * script out. bash uses `complete -F`; zsh loads the same function through its
 * `bashcompinit` (with `ksharrays`, so the bash array indexing holds); fish gets its
 * own `complete` lines. Every word placed in a script is checked to be a plain token,
 * so nothing from the tree can break out of the quoting.
 */
import type { NodeInfo } from './tree.js';

const TOKEN = /^[A-Za-z0-9_.:@%+,/-]*$/;

function token(word: string): string {
  if (!TOKEN.test(word)) throw new Error(`completion: unexpected word ${JSON.stringify(word)}`);
  return word;
}

/** A command path (`order bulk`): plain words separated by spaces, placed in single quotes. */
const pathToken = (path: string) => path.split(' ').map(token).join(' ');

const words = (list: readonly string[]) => list.map(token).join(' ');
const spaced = (list: readonly string[]) => (list.length ? ` ${words(list)} ` : '');

const valueFlags = (node: NodeInfo) => node.flags.filter((f) => f.takesValue).flatMap((f) => f.names);
const allFlags = (node: NodeInfo) => node.flags.flatMap((f) => f.names);

/**
 * The stored profiles, asked of the CLI when completing (they change after the script is
 * made): the names from `config list --json`, only those made of plain characters.
 */
const BASH_PROFILES = `"$(command giftcodes config list --json 2>/dev/null | sed -n 's/^ *"profile": "\\([A-Za-z0-9_.@+-]*\\)",*$/\\1/p')"`;
const FISH_PROFILES = `(command giftcodes config list --json 2>/dev/null | string replace -rf '^\\s*"profile": "([A-Za-z0-9_.@+-]+)",?$' '$1')`;

function bashFunction(nodes: NodeInfo[]): string {
  const nodeCases = nodes
    .map(
      (n) =>
        `    '${pathToken(n.path)}') _gc_subs='${words(n.subcommands.map((s) => s.name))}'; _gc_opts='${words(allFlags(n))}'; _gc_valopts='${spaced(valueFlags(n))}' ;;`,
    )
    .join('\n');
  const argCases = nodes
    .flatMap((n) =>
      n.args.flatMap((values, i) =>
        values.length ? [`    '${pathToken(n.path)}|${i}') _gc_args='${words(values)}' ;;`] : [],
      ),
    )
    .join('\n');
  const choiceCases = nodes
    .flatMap((n) =>
      n.flags
        .filter((f) => Boolean(f.choices) || Boolean(f.dynamic))
        .flatMap((f) =>
          f.names.map(
            (name) =>
              `    '${pathToken(n.path)}|${token(name)}') _gc_fixed=1; _gc_choices=${f.dynamic ? BASH_PROFILES : `'${words(f.choices ?? [])}'`} ;;`,
          ),
        ),
    )
    .join('\n');
  return `_giftcodes_node() {
  case "$1" in
${nodeCases}
    *) _gc_subs=''; _gc_opts=''; _gc_valopts='' ;;
  esac
}

# The values of the positional argument at index $2 of the command $1.
_giftcodes_args() {
  case "$1|$2" in
${argCases}
    *) _gc_args='' ;;
  esac
}

_giftcodes_choices() {
  _gc_fixed=0
  case "$1|$2" in
${choiceCases}
    *) _gc_choices='' ;;
  esac
}

_giftcodes() {
  if [[ -n \${ZSH_VERSION-} ]]; then setopt localoptions ksharrays; fi
  local cur="\${COMP_WORDS[COMP_CWORD]}" path='' word opt i skip=0 npos=0
  local _gc_subs _gc_opts _gc_valopts _gc_args _gc_choices _gc_fixed
  COMPREPLY=()
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    if ((skip)); then
      skip=0
      [[ "$word" == '=' ]] && skip=1
      continue
    fi
    _giftcodes_node "$path"
    case "$word" in
      --*=*) ;;
      -*) [[ "$_gc_valopts" == *" $word "* ]] && skip=1 ;;
      *)
        if [[ " $_gc_subs " == *" $word "* ]]; then
          path="\${path:+$path }$word"
          npos=0
        else
          npos=$((npos + 1))
        fi
        ;;
    esac
  done
  _giftcodes_node "$path"
  # The value of a flag: "--flag value", "--flag=value" (bash splits at "="), or "--flag=" kept whole.
  opt=''
  if ((skip)); then
    opt="\${COMP_WORDS[COMP_CWORD-1]}"
    [[ "$opt" == '=' ]] && opt="\${COMP_WORDS[COMP_CWORD-2]}"
  elif [[ "$cur" == '=' && "$_gc_valopts" == *" \${COMP_WORDS[COMP_CWORD-1]} "* ]]; then
    opt="\${COMP_WORDS[COMP_CWORD-1]}"
    cur=''
  elif [[ "$cur" == --*=* ]]; then
    opt="\${cur%%=*}"
    cur="\${cur#*=}"
  fi
  if [[ -n "$opt" ]]; then
    _giftcodes_choices "$path" "$opt"
    # No fixed values: leave it to the shell's default (file names). Fixed ones: only them,
    # also after a comma (a list such as --events a,b).
    if ((_gc_fixed)); then
      compopt +o default 2>/dev/null
      if [[ "$cur" == *,* ]]; then
        COMPREPLY=($(compgen -P "\${cur%,*}," -W "$_gc_choices" -- "\${cur##*,}"))
      else
        COMPREPLY=($(compgen -W "$_gc_choices" -- "$cur"))
      fi
    fi
    return 0
  fi
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$_gc_opts" -- "$cur"))
  elif [[ -n "$_gc_subs" ]]; then
    COMPREPLY=($(compgen -W "$_gc_subs" -- "$cur"))
  else
    _giftcodes_args "$path" "$npos"
    [[ -n "$_gc_args" ]] && COMPREPLY=($(compgen -W "$_gc_args" -- "$cur"))
    # A path to go on typing (/b2b/orders/ and an id): no space after it.
    [[ \${#COMPREPLY[@]} -eq 1 && "\${COMPREPLY[0]}" == */ ]] && compopt -o nospace 2>/dev/null
  fi
  return 0
}`;
}

export function bashScript(nodes: NodeInfo[]): string {
  return `# giftcodes completion for bash, generated by \`giftcodes completion bash\`.
# Load it in this shell:     source <(giftcodes completion bash)
# Or for every new shell:    giftcodes completion bash > ~/.local/share/bash-completion/completions/giftcodes
${bashFunction(nodes)}

complete -o default -F _giftcodes giftcodes
`;
}

export function zshScript(nodes: NodeInfo[]): string {
  return `# giftcodes completion for zsh, generated by \`giftcodes completion zsh\`.
# Load it in this shell:     source <(giftcodes completion zsh)
# For every new shell, add that line to ~/.zshrc (after compinit).
# It runs the bash completion function through zsh's bashcompinit.
(( \${+functions[compdef]} )) || { autoload -U +X compinit && compinit }
autoload -U +X bashcompinit && bashcompinit
${bashFunction(nodes)}

complete -o default -F _giftcodes giftcodes
`;
}

/** A fish single-quoted string. */
function fishQuote(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

export function fishScript(nodes: NodeInfo[]): string {
  const subsCases = nodes
    .filter((n) => n.subcommands.length)
    .map(
      (n) =>
        `        case '${pathToken(n.path)}'\n            printf '%s\\n' ${words(n.subcommands.map((s) => s.name))}`,
    )
    .join('\n');
  const valCases = nodes
    .map(
      (n) =>
        `        case '${pathToken(n.path)}'\n            printf '%s\\n' ${words(valueFlags(n)) || "''"}`,
    )
    .join('\n');
  const lines: string[] = [];
  for (const n of nodes) {
    const cond = `-n ${fishQuote(`test (__giftcodes_path) = '${pathToken(n.path)}'`)}`;
    for (const s of n.subcommands)
      lines.push(`complete -c giftcodes ${cond} -f -a ${token(s.name)} -d ${fishQuote(s.description)}`);
    n.args.forEach((values, i) => {
      if (!values.length) return;
      const at = fishQuote(
        `test (__giftcodes_path) = '${pathToken(n.path)}'; and test (__giftcodes_path count) = ${i}`,
      );
      lines.push(`complete -c giftcodes -n ${at} -f -a ${fishQuote(words(values))}`);
    });
    for (const f of n.flags) {
      const spell = f.names
        .map((name) => (name.startsWith('--') ? `-l ${token(name.slice(2))}` : `-s ${token(name.slice(1))}`))
        .join(' ');
      const value = f.dynamic
        ? `-x -a ${fishQuote(FISH_PROFILES)}`
        : f.choices
          ? `-x -a ${fishQuote(words(f.choices))}`
          : f.takesValue
            ? '-r'
            : '';
      lines.push(
        `complete -c giftcodes ${cond} ${spell} ${value} -d ${fishQuote(f.description)}`.replace(
          / {2,}/g,
          ' ',
        ),
      );
    }
  }
  return `# giftcodes completion for fish, generated by \`giftcodes completion fish\`.
# Load it in this shell:     giftcodes completion fish | source
# Or for every new shell:    giftcodes completion fish > ~/.config/fish/completions/giftcodes.fish
function __giftcodes_subs
    switch "$argv[1]"
${subsCases}
    end
end

function __giftcodes_valopts
    switch "$argv[1]"
${valCases}
    end
end

# The subcommand path typed so far, skipping flags and their values; with \`count\`, how
# many positional arguments follow it.
function __giftcodes_path
    set -l tokens (commandline -opc)
    set -e tokens[1]
    set -l path
    set -l count 0
    set -l skip 0
    for t in $tokens
        if test $skip = 1
            set skip 0
            continue
        end
        switch $t
            case '--*=*'
            case '-*'
                if contains -- $t (__giftcodes_valopts "$path")
                    set skip 1
                end
            case '*'
                if contains -- $t (__giftcodes_subs "$path")
                    set path (string trim -- "$path $t")
                    set count 0
                else
                    set count (math $count + 1)
                end
        end
    end
    if test "$argv[1]" = count
        echo $count
    else
        echo $path
    end
end

${lines.join('\n')}
`;
}
