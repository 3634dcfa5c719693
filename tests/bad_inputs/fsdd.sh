# Sourced by the audio cases of cases.sh: WAV files written with printf, and a tiny folder
# shaped like the Free Spoken Digit Dataset.

# le16 N, le32 N: N as little-endian bytes.
le16() { printf "\\x$(printf %02x $(($1 & 255)))\\x$(printf %02x $((($1 >> 8) & 255)))"; }
le32() { le16 $(($1 & 65535)); le16 $((($1 >> 16) & 65535)); }

# wav FILE SAMPLES [TAG]: a mono 16-bit 8 kHz WAV of SAMPLES samples of 0x4040; TAG is the
# fmt chunk's codec (default 1, PCM).
wav() {
  local bytes=$(($2 * 2))
  { printf 'RIFF'; le32 $((36 + bytes)); printf 'WAVEfmt '; le32 16; le16 "${3:-1}"; le16 1
    le32 8000; le32 16000; le16 2; le16 16; printf 'data'; le32 $bytes
    head -c $bytes /dev/zero | tr '\0' '\100'; } > "$1"
}

# make_fsdd DIR: DIR/recordings/{1,2}_{a,b}_{0,5,6}.wav, 400 samples each (indices 0 test,
# 5 and 6 train).
make_fsdd() {
  mkdir -p "$1/recordings"
  local s d i
  for s in a b; do for d in 1 2; do for i in 0 5 6; do
    wav "$1/recordings/${d}_${s}_${i}.wav" 400
  done; done; done
}
