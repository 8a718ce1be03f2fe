"""fw/bin2hex.py: turn the firmware's raw binary into a $readmemh file, or
into the RAM's whole image for a board's flash.

For: fw/fw.mk only. OUT.hex: one 32-bit little-endian word a line, as 8 hex
digits, padded with zero words to exactly FW_WORDS lines (so every RAM word
is defined and no simulator warns of a short file). OUT.bin: the same words
as raw bytes, FW_WORDS * 4 of them (what `make prog` writes to the
iCEBreaker's flash, for qpnic_spi_boot to copy into the RAM at boot). Fails,
naming the sizes, when the image does not fit.
Not for: ELF parsing (objcopy -O binary has already flattened the image).

usage: bin2hex.py IMAGE.bin FW_WORDS OUT.hex|OUT.bin
"""
import sys


def main(argv):
    if len(argv) != 4:
        sys.exit("usage: bin2hex.py IMAGE.bin FW_WORDS OUT.hex|OUT.bin")
    data = open(argv[1], "rb").read()
    words = int(argv[2])
    data += b"\0" * (-len(data) % 4)
    if len(data) > words * 4:
        sys.exit(f"bin2hex: firmware image is {len(data)} bytes, RAM holds {words * 4}")
    data += b"\0" * (words * 4 - len(data))
    if argv[3].endswith(".bin"):
        with open(argv[3], "wb") as out:
            out.write(data)
        return
    with open(argv[3], "w") as out:
        for i in range(0, len(data), 4):
            out.write(f"{int.from_bytes(data[i:i + 4], 'little'):08x}\n")


if __name__ == "__main__":
    main(sys.argv)
