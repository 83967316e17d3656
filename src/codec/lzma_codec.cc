#include "codec/lzma_codec.h"

#include <lzma.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "codec/raw_bytes.h"

namespace turbozarr {

// The filters of a chain and their options, in storage that lives as long
// as the codec (the lzma_filter entries point into it), ended by
// LZMA_VLI_UNKNOWN as liblzma wants. Without a chain of filters (numcodecs'
// "filters": null), `lzma[0]` holds the preset's LZMA options.
struct LzmaCodec::Chain {
  uint32_t preset = LZMA_PRESET_DEFAULT;
  bool has_filters = false;
  std::array<lzma_options_lzma, LZMA_FILTERS_MAX> lzma{};
  std::array<lzma_options_delta, LZMA_FILTERS_MAX> delta{};
  std::array<lzma_options_bcj, LZMA_FILTERS_MAX> bcj{};
  std::array<lzma_filter, LZMA_FILTERS_MAX + 1> filters{};
};

namespace {

// Decoders refuse a stream whose dictionary needs more: the container's
// header says how much to allocate, and a damaged or hostile one must not
// make a read reserve gigabytes. The presets use at most 64 MiB.
constexpr uint64_t kDecoderMemoryLimit = uint64_t{1} << 30;

Status Bad(const std::string& what) { return Status::Corruption("codec lzma: " + what); }

struct StreamEnd {
  lzma_stream* strm;
  ~StreamEnd() { lzma_end(strm); }
};

// Each thread keeps its encoder between chunks while it is small: set up
// again on the same stream, liblzma reuses its memory, which saves about a
// third of the time at the low presets, where setting up costs as much as a
// quarter of the encoding. A larger one (presets 4 and up take 48-674 MiB)
// is let go after each chunk rather than held by every thread.
constexpr uint64_t kKeptEncoderMemory = uint64_t{32} << 20;

struct ThreadEncoder {
  lzma_stream strm = LZMA_STREAM_INIT;
  ~ThreadEncoder() { lzma_end(&strm); }
};

lzma_stream* ThreadEncoderStream() {
  thread_local ThreadEncoder encoder;
  return &encoder.strm;
}

// Applies the rule above when a chunk's encoding ends, however it ends.
struct EncoderRelease {
  lzma_stream* strm;
  ~EncoderRelease() {
    if (lzma_memusage(strm) > kKeptEncoderMemory) {
      lzma_end(strm);
      *strm = LZMA_STREAM_INIT;
    }
  }
};

std::string Describe(lzma_ret r) {
  switch (r) {
    case LZMA_FORMAT_ERROR: return "not a stream of the array's format";
    case LZMA_OPTIONS_ERROR: return "the stream asks for options liblzma does not support";
    case LZMA_DATA_ERROR: return "corrupt data";
    case LZMA_MEM_ERROR: return "out of memory";
    case LZMA_MEMLIMIT_ERROR: return "the stream needs more decoder memory than the limit";
    case LZMA_UNSUPPORTED_CHECK: return "unsupported integrity check";
    case LZMA_PROG_ERROR: return "invalid arguments to liblzma";
    default: return "liblzma error " + std::to_string(static_cast<int>(r));
  }
}

Status Failure(lzma_ret r, lzma_stream* strm) {
  if (r == LZMA_MEM_ERROR) return Status::IOError("codec lzma: out of memory");
  if (r == LZMA_MEMLIMIT_ERROR) {
    return Bad("the stream's dictionary needs " + std::to_string(lzma_memusage(strm) >> 20) +
               " MiB of decoder memory, more than the limit of " +
               std::to_string(kDecoderMemoryLimit >> 20) + " MiB");
  }
  return Bad(Describe(r));
}

bool IsLzmaFilter(lzma_vli id) { return id == LZMA_FILTER_LZMA1 || id == LZMA_FILTER_LZMA2; }

bool IsBranchFilter(lzma_vli id) {
  return id == LZMA_FILTER_X86 || id == LZMA_FILTER_POWERPC || id == LZMA_FILTER_IA64 ||
         id == LZMA_FILTER_ARM || id == LZMA_FILTER_ARMTHUMB || id == LZMA_FILTER_SPARC;
}

// An unsigned 32-bit option, as Python's lzma module converts it.
Result<uint32_t> Uint32(const nlohmann::json& value, const std::string& where,
                        internal::CodecConfig& config) {
  if (value.is_number_unsigned() && value.get<uint64_t>() <= UINT32_MAX) {
    return static_cast<uint32_t>(value.get<uint64_t>());
  }
  if (value.is_number_integer() && value.get<int64_t>() >= 0 &&
      value.get<int64_t>() <= UINT32_MAX) {
    return static_cast<uint32_t>(value.get<int64_t>());
  }
  return config.Invalid("filters", where + ": expected an integer in [0, 2^32), got " +
                                       value.dump());
}

Status CheckPreset(uint32_t preset, const std::string& where,
                   internal::CodecConfig& config) {
  lzma_options_lzma probe;
  if (lzma_lzma_preset(&probe, preset)) {
    return config.Invalid(where, "invalid preset " + std::to_string(preset) +
                                     " (a level 0-9, optionally with the extreme flag " +
                                     std::to_string(LZMA_PRESET_EXTREME) + ")");
  }
  return Status::OK();
}

// One filter of numcodecs' "filters" list: {"id": ..., options}, read as
// Python's lzma module reads it (an LZMA filter starts from its "preset",
// default 6, and takes the options given over it).
Status ParseFilter(const nlohmann::json& spec, size_t i, LzmaCodec::Chain& chain,
                   internal::CodecConfig& config) {
  const std::string where = "filter " + std::to_string(i);
  if (!spec.is_object() || !spec.contains("id")) {
    return config.Invalid("filters", where + ": expected an object with an \"id\", got " +
                                         spec.dump());
  }
  const nlohmann::json& id_json = spec["id"];
  if (!id_json.is_number_integer()) {
    return config.Invalid("filters", where + ": \"id\" must be an integer, got " +
                                         id_json.dump());
  }
  const lzma_vli id = id_json.get<uint64_t>();
  lzma_filter& filter = chain.filters[i];
  filter.id = id;
  auto allowed = [&](std::initializer_list<std::string_view> keys) -> Status {
    for (const auto& [key, value] : spec.items()) {
      if (key != "id" && std::find(keys.begin(), keys.end(), key) == keys.end()) {
        return config.Invalid("filters", where + ": unknown option \"" + key + "\"");
      }
    }
    return Status::OK();
  };
  if (IsLzmaFilter(id)) {
    TZ_RETURN_NOT_OK(allowed({"preset", "dict_size", "lc", "lp", "pb", "mode", "nice_len",
                              "mf", "depth"}));
    uint32_t preset = LZMA_PRESET_DEFAULT;
    if (spec.contains("preset")) {
      TZ_ASSIGN_OR_RETURN(preset, Uint32(spec["preset"], where + " preset", config));
    }
    TZ_RETURN_NOT_OK(CheckPreset(preset, "filters", config));
    lzma_options_lzma& o = chain.lzma[i];
    lzma_lzma_preset(&o, preset);
    struct Field {
      const char* key;
      uint32_t* u32;
    };
    uint32_t mode = o.mode;
    uint32_t mf = o.mf;
    for (Field f : {Field{"dict_size", &o.dict_size}, Field{"lc", &o.lc}, Field{"lp", &o.lp},
                    Field{"pb", &o.pb}, Field{"mode", &mode}, Field{"nice_len", &o.nice_len},
                    Field{"mf", &mf}, Field{"depth", &o.depth}}) {
      if (!spec.contains(f.key)) continue;
      TZ_ASSIGN_OR_RETURN(*f.u32, Uint32(spec[f.key], where + " " + f.key, config));
    }
    if (mode != LZMA_MODE_FAST && mode != LZMA_MODE_NORMAL) {
      return config.Invalid("filters", where + ": invalid mode " + std::to_string(mode));
    }
    if (mf != LZMA_MF_HC3 && mf != LZMA_MF_HC4 && mf != LZMA_MF_BT2 && mf != LZMA_MF_BT3 &&
        mf != LZMA_MF_BT4) {
      return config.Invalid("filters", where + ": invalid match finder " + std::to_string(mf));
    }
    o.mode = static_cast<lzma_mode>(mode);
    o.mf = static_cast<lzma_match_finder>(mf);
    filter.options = &o;
  } else if (id == LZMA_FILTER_DELTA) {
    TZ_RETURN_NOT_OK(allowed({"dist"}));
    lzma_options_delta& o = chain.delta[i];
    o.type = LZMA_DELTA_TYPE_BYTE;
    o.dist = 1;
    if (spec.contains("dist")) {
      TZ_ASSIGN_OR_RETURN(o.dist, Uint32(spec["dist"], where + " dist", config));
    }
    filter.options = &o;
  } else if (IsBranchFilter(id)) {
    TZ_RETURN_NOT_OK(allowed({"start_offset"}));
    lzma_options_bcj& o = chain.bcj[i];
    o.start_offset = 0;
    if (spec.contains("start_offset")) {
      TZ_ASSIGN_OR_RETURN(o.start_offset,
                          Uint32(spec["start_offset"], where + " start_offset", config));
    }
    filter.options = &o;
  } else {
    return config.Invalid("filters", where + ": unknown filter id " + id_json.dump());
  }
  return Status::OK();
}

}  // namespace

LzmaCodec::LzmaCodec(Format format, int check, std::shared_ptr<const Chain> chain,
                     nlohmann::json fields, bool in_v3)
    : StreamCompressor("lzma"),
      format_(format),
      check_(check),
      chain_(std::move(chain)),
      fields_(std::move(fields)),
      in_v3_(in_v3) {}

Result<std::shared_ptr<const LzmaCodec>> LzmaCodec::Make(internal::CodecConfig& config,
                                                         bool in_v3) {
  nlohmann::json fields = nlohmann::json::object();
  for (const char* key : {"format", "check", "preset", "filters"}) {
    if (config.Has(key)) fields[key] = config.Raw(key);
  }
  TZ_RETURN_NOT_OK(config.Finish());

  auto integer = [&](const char* key, int64_t fallback) -> Result<int64_t> {
    const nlohmann::json value = fields.value(key, nlohmann::json());
    if (value.is_null()) return fallback;
    if (!value.is_number_integer()) {
      return config.Invalid(key, "expected an integer, got " + value.dump());
    }
    return value.get<int64_t>();
  };
  TZ_ASSIGN_OR_RETURN(int64_t format, integer("format", kXz));
  if (format < kAuto || format > kRaw) {
    return config.Invalid("format", std::to_string(format) +
                                        " is not 1 (xz), 2 (alone), 3 (raw) or 0 (auto, "
                                        "decoding only)");
  }
  TZ_ASSIGN_OR_RETURN(int64_t check, integer("check", -1));
  if (check != -1 && check != LZMA_CHECK_NONE && check != LZMA_CHECK_CRC32 &&
      check != LZMA_CHECK_CRC64 && check != LZMA_CHECK_SHA256) {
    return config.Invalid("check", std::to_string(check) +
                                       " is not -1 (default), 0 (none), 1 (crc32), "
                                       "4 (crc64) or 10 (sha256)");
  }
  if (format != kXz && format != kAuto && check != -1 && check != LZMA_CHECK_NONE) {
    return config.Invalid("check", "integrity checks are only in the xz format (1)");
  }

  auto chain = std::make_shared<Chain>();
  const nlohmann::json preset = fields.value("preset", nlohmann::json());
  const nlohmann::json filters = fields.value("filters", nlohmann::json());
  if (!preset.is_null()) {
    if (!filters.is_null()) {
      return config.Invalid("preset", "cannot be given with a filter chain");
    }
    if (!preset.is_number_integer() || preset.get<int64_t>() < 0 ||
        preset.get<int64_t>() > UINT32_MAX) {
      return config.Invalid("preset", "expected an integer, got " + preset.dump());
    }
    chain->preset = static_cast<uint32_t>(preset.get<int64_t>());
    TZ_RETURN_NOT_OK(CheckPreset(chain->preset, "preset", config));
  }
  if (!filters.is_null()) {
    if (!filters.is_array() || filters.empty() || filters.size() > LZMA_FILTERS_MAX) {
      return config.Invalid("filters", "expected a list of 1 to " +
                                           std::to_string(LZMA_FILTERS_MAX) +
                                           " filters, got " + filters.dump());
    }
    chain->has_filters = true;
    for (size_t i = 0; i < filters.size(); ++i) {
      TZ_RETURN_NOT_OK(ParseFilter(filters[i], i, *chain, config));
    }
    chain->filters[filters.size()].id = LZMA_VLI_UNKNOWN;
    // liblzma's own check of the chain: the order of the filters and every
    // option's range (UINT64_MAX means it refuses them).
    if (lzma_raw_encoder_memusage(chain->filters.data()) == UINT64_MAX) {
      return config.Invalid("filters", "liblzma refuses the chain " + filters.dump() +
                                           " (an LZMA filter must come last, and only "
                                           "there; options out of range)");
    }
    if (format == kXz && chain->filters[filters.size() - 1].id == LZMA_FILTER_LZMA1) {
      return config.Invalid("filters", "the xz format holds LZMA2, not LZMA1");
    }
    if (format == kAlone &&
        (filters.size() != 1 || chain->filters[0].id != LZMA_FILTER_LZMA1)) {
      return config.Invalid("filters", "the alone format (2) takes one LZMA1 filter");
    }
  } else {
    if (format == kRaw) {
      return config.Invalid("filters", "the raw format (3) needs a filter chain");
    }
    lzma_lzma_preset(&chain->lzma[0], chain->preset);
  }
  return std::make_shared<const LzmaCodec>(static_cast<Format>(format),
                                           static_cast<int>(check), std::move(chain),
                                           std::move(fields), in_v3);
}

nlohmann::json LzmaCodec::ToV2Json() const {
  // numcodecs' get_config: every field, the defaults where none was given.
  return {{"id", "lzma"},
          {"format", fields_.value("format", nlohmann::json(1))},
          {"check", fields_.value("check", nlohmann::json(-1))},
          {"preset", fields_.value("preset", nlohmann::json())},
          {"filters", fields_.value("filters", nlohmann::json())}};
}

nlohmann::json LzmaCodec::ToJson() const {
  return {{"name", name()}, {"configuration", fields_}};
}

Result<Buffer> LzmaCodec::Encode(ByteView decoded) const {
  if (format_ == kAuto) {
    return Status::InvalidArgument(
        "codec lzma: format 0 (auto) only decodes; numcodecs cannot write it either");
  }
  lzma_stream& strm = *ThreadEncoderStream();
  EncoderRelease release{&strm};
  lzma_ret r = LZMA_OK;
  const Chain& chain = *chain_;
  switch (format_) {
    case kXz: {
      const auto check = static_cast<lzma_check>(check_ == -1 ? LZMA_CHECK_CRC64 : check_);
      r = chain.has_filters ? lzma_stream_encoder(&strm, chain.filters.data(), check)
                            : lzma_easy_encoder(&strm, chain.preset, check);
      break;
    }
    case kAlone:
      r = lzma_alone_encoder(&strm, &chain.lzma[0]);
      break;
    default:
      r = lzma_raw_encoder(&strm, chain.filters.data());
      break;
  }
  if (r != LZMA_OK) return Failure(r, &strm);
  Buffer out;
  TZ_ASSIGN_OR_RETURN(out, internal::AllocateBuffer(lzma_stream_buffer_bound(decoded.size()),
                                                    "codec lzma"));
  strm.next_in = reinterpret_cast<const uint8_t*>(decoded.data());
  strm.avail_in = decoded.size();
  size_t out_pos = 0;
  while (true) {
    strm.next_out = reinterpret_cast<uint8_t*>(out.data() + out_pos);
    strm.avail_out = out.size() - out_pos;
    const size_t room = strm.avail_out;
    r = lzma_code(&strm, LZMA_FINISH);
    out_pos += room - strm.avail_out;
    if (r == LZMA_STREAM_END) break;
    if (r != LZMA_OK) return Failure(r, &strm);
    if (out_pos == out.size()) TZ_RETURN_NOT_OK(GrowOutput(&out, out_pos));  // past the bound
  }
  out.Resize(out_pos);
  return out;
}

// The concatenated streams of `encoded`, in the array's format.
Result<size_t> LzmaCodec::DecodeStreams(ByteView encoded, MutableByteView fixed,
                                        Buffer* growable) const {
  if (encoded.empty()) return Bad("empty input is not a stream");
  MutableByteView out = growable ? growable->mutable_view() : fixed;
  size_t in_pos = 0;
  size_t out_pos = 0;
  // One iteration per concatenated stream. Like Python's lzma.decompress,
  // bytes after a complete stream that fail to start another are ignored.
  for (int stream = 0; in_pos < encoded.size(); ++stream) {
    lzma_stream strm = LZMA_STREAM_INIT;
    StreamEnd end{&strm};
    lzma_ret r;
    switch (format_) {
      case kAuto: r = lzma_auto_decoder(&strm, kDecoderMemoryLimit, 0); break;
      case kXz: r = lzma_stream_decoder(&strm, kDecoderMemoryLimit, 0); break;
      case kAlone: r = lzma_alone_decoder(&strm, kDecoderMemoryLimit); break;
      default: r = lzma_raw_decoder(&strm, chain_->filters.data()); break;
    }
    if (r != LZMA_OK) return Failure(r, &strm);
    const size_t stream_start = out_pos;
    while (true) {
      // A full fixed output gets one spare byte: some decoders reach their
      // end marker only with room to write, and a byte written there is
      // one more than the chunk holds.
      uint8_t spare;
      const bool full = !growable && out_pos == out.size();
      strm.next_in = reinterpret_cast<const uint8_t*>(encoded.data() + in_pos);
      strm.avail_in = encoded.size() - in_pos;
      strm.next_out = full ? &spare : reinterpret_cast<uint8_t*>(out.data() + out_pos);
      strm.avail_out = full ? 1 : out.size() - out_pos;
      const size_t had_in = strm.avail_in;
      const size_t room = strm.avail_out;
      r = lzma_code(&strm, LZMA_RUN);
      const size_t used = had_in - strm.avail_in;
      const size_t made = room - strm.avail_out;
      if (full && made > 0) {
        return Bad("data decodes to more than the expected " + std::to_string(out.size()) +
                   " bytes");
      }
      in_pos += used;
      if (!full) out_pos += made;
      if (r == LZMA_STREAM_END) break;
      if (r != LZMA_OK && r != LZMA_BUF_ERROR) {
        if (stream > 0 && r != LZMA_MEM_ERROR) {
          // Not another stream: what follows the last one is ignored.
          return stream_start;
        }
        return Failure(r, &strm);
      }
      if (used == 0 && made == 0) {
        // Stuck with room to write: the input ended inside a stream (for a
        // stream after the first, inside bytes that began one).
        if (!growable || out_pos < out.size()) return Bad("data ends inside the stream");
        TZ_RETURN_NOT_OK(GrowOutput(growable, out_pos));
        out = growable->mutable_view();
      }
    }
  }
  return out_pos;
}

}  // namespace turbozarr
