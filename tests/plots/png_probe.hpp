// Reads a PNG far enough to judge a figure: the signature, the size in pixels from IHDR, and the
// number of distinct pixel colours (IDAT inflated through boost::iostreams' zlib filter, the
// scanline filters undone). 8-bit RGB / RGBA / grey images only, which is what pngcairo writes.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <boost/iostreams/copy.hpp>
#include <boost/iostreams/filter/zlib.hpp>
#include <boost/iostreams/filtering_stream.hpp>

namespace collreplay::plots::testing {

struct PngInfo {
  bool signature_ok = false;
  std::uint32_t width = 0, height = 0;
  std::size_t distinct_colours = 0;  // counted up to 64
  std::string problem;               // empty when the image was decoded
};

inline std::uint32_t big_endian(const unsigned char* p) {
  return (std::uint32_t(p[0]) << 24) | (std::uint32_t(p[1]) << 16) | (std::uint32_t(p[2]) << 8) |
         p[3];
}

inline PngInfo probe_png(const std::string& path) {
  PngInfo info;
  std::ifstream in(path, std::ios::binary);
  const std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)),
                                         std::istreambuf_iterator<char>());
  static const unsigned char kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (bytes.size() < 33 || !std::equal(kSignature, kSignature + 8, bytes.begin())) {
    info.problem = "not a PNG";
    return info;
  }
  info.signature_ok = true;
  int bit_depth = 0, colour_type = 0;
  std::string idat;
  for (std::size_t at = 8; at + 12 <= bytes.size();) {
    const std::uint32_t length = big_endian(&bytes[at]);
    const std::string type(bytes.begin() + at + 4, bytes.begin() + at + 8);
    const unsigned char* data = &bytes[at + 8];
    if (at + 12 + length > bytes.size()) break;
    if (type == "IHDR") {
      info.width = big_endian(data);
      info.height = big_endian(data + 4);
      bit_depth = data[8];
      colour_type = data[9];
    } else if (type == "IDAT") {
      idat.append(reinterpret_cast<const char*>(data), length);
    }
    at += 12 + length;
  }
  const int channels = colour_type == 6 ? 4 : colour_type == 2 ? 3 : colour_type == 0 ? 1 : 0;
  if (bit_depth != 8 || channels == 0) {
    info.problem = "unsupported PNG format";
    return info;
  }
  std::string raw;
  {
    boost::iostreams::filtering_istream inflate;
    inflate.push(boost::iostreams::zlib_decompressor());
    std::istringstream compressed(idat);
    inflate.push(compressed);
    std::ostringstream out;
    boost::iostreams::copy(inflate, out);
    raw = out.str();
  }
  const std::size_t stride = std::size_t(info.width) * channels;
  if (raw.size() < (stride + 1) * info.height) {
    info.problem = "short image data";
    return info;
  }
  std::vector<unsigned char> previous(stride, 0), line(stride);
  std::set<std::string> colours;
  for (std::uint32_t y = 0; y < info.height; ++y) {
    const unsigned char filter = raw[y * (stride + 1)];
    const unsigned char* src =
        reinterpret_cast<const unsigned char*>(raw.data()) + y * (stride + 1) + 1;
    for (std::size_t x = 0; x < stride; ++x) {
      const int a = x >= std::size_t(channels) ? line[x - channels] : 0, b = previous[x];
      const int c = x >= std::size_t(channels) ? previous[x - channels] : 0;
      int predicted = 0;
      if (filter == 1) predicted = a;
      if (filter == 2) predicted = b;
      if (filter == 3) predicted = (a + b) / 2;
      if (filter == 4) {
        const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
        predicted = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      line[x] = static_cast<unsigned char>(src[x] + predicted);
    }
    for (std::size_t x = 0; x < stride && colours.size() < 64; x += channels)
      colours.insert(std::string(line.begin() + x, line.begin() + x + channels));
    previous = line;
  }
  info.distinct_colours = colours.size();
  return info;
}

}  // namespace collreplay::plots::testing
