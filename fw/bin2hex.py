"""fw/bin2hex.py: turn the firmware's raw binary into a $readmemh file, or
into the image a board's flash holds.

For: fw/fw.mk only.
OUT.hex: one 32-bit little-endian word a line, as 8 hex digits, padded with
zero words to exactly FW_WORDS lines (so every RAM word is defined and no
simulator warns of a short file).
OUT.flash.bin: what `make prog` writes to the iCEBreaker's flash, for
qpnic_spi_boot to check and copy into the RAM at boot (spec/layout.toml
FW_IMAGE_MAGIC): FW_IMAGE_MAGIC and VERSION_VALUE, the same FW_WORDS words
as raw bytes, then the CRC-32/MPEG-2 of all of it, most significant byte
first.
Fails, naming the sizes, when the image does not fit.
Not for: ELF parsing (objcopy -O binary has already flattened the image).

usage: bin2hex.py IMAGE.bin FW_WORDS OUT.hex|OUT.flash.bin
"""
import re
import sys
from pathlib import Path

HEADER = Path(__file__).resolve().parent / "gen" / "qpnic_fw_hw.h"


def layout(*names):
    """The layout's constants, from the firmware's generated header."""
    text = HEADER.read_text()
    vals = {n: int(v, 0) for n, v in re.findall(r"#define QPNIC_(\w+) (0x[0-9A-Fa-f]+|\d+)u", text)}
    return [vals[n] for n in names]


def crc32_mpeg2(data):
    """CRC-32/MPEG-2: polynomial 0x04C11DB7, initial 0xFFFFFFFF, bits most
    significant first, no final XOR (the loader's, a bit a clock)."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte << 24
        for _ in range(8):
            crc = ((crc << 1) ^ 0x04C11DB7 if crc & 0x80000000 else crc << 1) & 0xFFFFFFFF
    return crc


def flash_image(ram):
    magic, version, hdr_words = layout("FW_IMAGE_MAGIC", "VERSION_VALUE", "FW_IMAGE_HDR_WORDS")
    body = magic.to_bytes(4, "little") + version.to_bytes(4, "little") + ram
    assert len(body) == 4 * hdr_words + len(ram)
    image = body + crc32_mpeg2(body).to_bytes(4, "big")
    assert crc32_mpeg2(image) == 0
    return image


def main(argv):
    if len(argv) != 4:
        sys.exit("usage: bin2hex.py IMAGE.bin FW_WORDS OUT.hex|OUT.flash.bin")
    data = open(argv[1], "rb").read()
    words = int(argv[2])
    data += b"\0" * (-len(data) % 4)
    if len(data) > words * 4:
        sys.exit(f"bin2hex: firmware image is {len(data)} bytes, RAM holds {words * 4}")
    data += b"\0" * (words * 4 - len(data))
    if argv[3].endswith(".flash.bin"):
        with open(argv[3], "wb") as out:
            out.write(flash_image(data))
        return
    with open(argv[3], "w") as out:
        for i in range(0, len(data), 4):
            out.write(f"{int.from_bytes(data[i:i + 4], 'little'):08x}\n")


if __name__ == "__main__":
    main(sys.argv)
