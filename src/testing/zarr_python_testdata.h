// Metadata documents exactly as zarr-python 3.1.6 writes them (generated with
// zarr.create_array / zarr.open_group and zarr.consolidate_metadata), for
// byte-for-byte round-trip tests.
#pragma once

#include <string_view>

namespace turbozarr::testing {

// v3_basic/zarr.json
inline constexpr std::string_view kV3BasicZarrJson = R"json({
  "shape": [
    100,
    20
  ],
  "data_type": "int32",
  "chunk_grid": {
    "name": "regular",
    "configuration": {
      "chunk_shape": [
        10,
        5
      ]
    }
  },
  "chunk_key_encoding": {
    "name": "default",
    "configuration": {
      "separator": "/"
    }
  },
  "fill_value": 0,
  "codecs": [
    {
      "name": "bytes",
      "configuration": {
        "endian": "little"
      }
    },
    {
      "name": "zstd",
      "configuration": {
        "level": 0,
        "checksum": false
      }
    }
  ],
  "attributes": {},
  "zarr_format": 3,
  "node_type": "array",
  "storage_transformers": []
})json";

// v3_attrs/zarr.json
inline constexpr std::string_view kV3AttrsZarrJson = R"json({
  "shape": [
    100,
    20
  ],
  "data_type": "float64",
  "chunk_grid": {
    "name": "regular",
    "configuration": {
      "chunk_shape": [
        10,
        5
      ]
    }
  },
  "chunk_key_encoding": {
    "name": "default",
    "configuration": {
      "separator": "/"
    }
  },
  "fill_value": "NaN",
  "codecs": [
    {
      "name": "bytes",
      "configuration": {
        "endian": "little"
      }
    },
    {
      "name": "zstd",
      "configuration": {
        "level": 0,
        "checksum": false
      }
    }
  ],
  "attributes": {
    "a": 1,
    "b": [
      1,
      "x"
    ]
  },
  "dimension_names": [
    "x",
    null
  ],
  "zarr_format": 3,
  "node_type": "array",
  "storage_transformers": []
})json";

// v3_shard/zarr.json
inline constexpr std::string_view kV3ShardZarrJson = R"json({
  "shape": [
    64
  ],
  "data_type": "uint16",
  "chunk_grid": {
    "name": "regular",
    "configuration": {
      "chunk_shape": [
        32
      ]
    }
  },
  "chunk_key_encoding": {
    "name": "default",
    "configuration": {
      "separator": "/"
    }
  },
  "fill_value": 7,
  "codecs": [
    {
      "name": "sharding_indexed",
      "configuration": {
        "chunk_shape": [
          8
        ],
        "codecs": [
          {
            "name": "bytes",
            "configuration": {
              "endian": "little"
            }
          },
          {
            "name": "zstd",
            "configuration": {
              "level": 0,
              "checksum": false
            }
          }
        ],
        "index_codecs": [
          {
            "name": "bytes",
            "configuration": {
              "endian": "little"
            }
          },
          {
            "name": "crc32c"
          }
        ],
        "index_location": "end"
      }
    }
  ],
  "attributes": {},
  "zarr_format": 3,
  "node_type": "array",
  "storage_transformers": []
})json";

// v3_str/zarr.json
inline constexpr std::string_view kV3StrZarrJson = R"json({
  "shape": [
    5
  ],
  "data_type": "string",
  "chunk_grid": {
    "name": "regular",
    "configuration": {
      "chunk_shape": [
        5
      ]
    }
  },
  "chunk_key_encoding": {
    "name": "default",
    "configuration": {
      "separator": "/"
    }
  },
  "fill_value": "",
  "codecs": [
    {
      "name": "vlen-utf8",
      "configuration": {}
    },
    {
      "name": "zstd",
      "configuration": {
        "level": 0,
        "checksum": false
      }
    }
  ],
  "attributes": {},
  "zarr_format": 3,
  "node_type": "array",
  "storage_transformers": []
})json";

// v3_vbytes/zarr.json
inline constexpr std::string_view kV3VbytesZarrJson = R"json({
  "shape": [
    5
  ],
  "data_type": "variable_length_bytes",
  "chunk_grid": {
    "name": "regular",
    "configuration": {
      "chunk_shape": [
        5
      ]
    }
  },
  "chunk_key_encoding": {
    "name": "default",
    "configuration": {
      "separator": "/"
    }
  },
  "fill_value": "",
  "codecs": [
    {
      "name": "vlen-bytes",
      "configuration": {}
    },
    {
      "name": "zstd",
      "configuration": {
        "level": 0,
        "checksum": false
      }
    }
  ],
  "attributes": {},
  "zarr_format": 3,
  "node_type": "array",
  "storage_transformers": []
})json";

// v3_u/zarr.json
inline constexpr std::string_view kV3UZarrJson = R"json({
  "shape": [
    5
  ],
  "data_type": {
    "name": "fixed_length_utf32",
    "configuration": {
      "length_bytes": 16
    }
  },
  "chunk_grid": {
    "name": "regular",
    "configuration": {
      "chunk_shape": [
        5
      ]
    }
  },
  "chunk_key_encoding": {
    "name": "default",
    "configuration": {
      "separator": "/"
    }
  },
  "fill_value": "ab",
  "codecs": [
    {
      "name": "bytes",
      "configuration": {
        "endian": "little"
      }
    },
    {
      "name": "zstd",
      "configuration": {
        "level": 0,
        "checksum": false
      }
    }
  ],
  "attributes": {},
  "zarr_format": 3,
  "node_type": "array",
  "storage_transformers": []
})json";

// v3_s/zarr.json
inline constexpr std::string_view kV3SZarrJson = R"json({
  "shape": [
    5
  ],
  "data_type": {
    "name": "null_terminated_bytes",
    "configuration": {
      "length_bytes": 3
    }
  },
  "chunk_grid": {
    "name": "regular",
    "configuration": {
      "chunk_shape": [
        5
      ]
    }
  },
  "chunk_key_encoding": {
    "name": "default",
    "configuration": {
      "separator": "/"
    }
  },
  "fill_value": "eHk=",
  "codecs": [
    {
      "name": "bytes"
    },
    {
      "name": "zstd",
      "configuration": {
        "level": 0,
        "checksum": false
      }
    }
  ],
  "attributes": {},
  "zarr_format": 3,
  "node_type": "array",
  "storage_transformers": []
})json";

// v3_v/zarr.json
inline constexpr std::string_view kV3VZarrJson = R"json({
  "shape": [
    5
  ],
  "data_type": {
    "name": "raw_bytes",
    "configuration": {
      "length_bytes": 2
    }
  },
  "chunk_grid": {
    "name": "regular",
    "configuration": {
      "chunk_shape": [
        5
      ]
    }
  },
  "chunk_key_encoding": {
    "name": "default",
    "configuration": {
      "separator": "/"
    }
  },
  "fill_value": "AAA=",
  "codecs": [
    {
      "name": "bytes"
    },
    {
      "name": "zstd",
      "configuration": {
        "level": 0,
        "checksum": false
      }
    }
  ],
  "attributes": {},
  "zarr_format": 3,
  "node_type": "array",
  "storage_transformers": []
})json";

// v3_c/zarr.json
inline constexpr std::string_view kV3CZarrJson = R"json({
  "shape": [
    5
  ],
  "data_type": "complex64",
  "chunk_grid": {
    "name": "regular",
    "configuration": {
      "chunk_shape": [
        5
      ]
    }
  },
  "chunk_key_encoding": {
    "name": "default",
    "configuration": {
      "separator": "/"
    }
  },
  "fill_value": [
    1.0,
    2.0
  ],
  "codecs": [
    {
      "name": "bytes",
      "configuration": {
        "endian": "little"
      }
    },
    {
      "name": "zstd",
      "configuration": {
        "level": 0,
        "checksum": false
      }
    }
  ],
  "attributes": {},
  "zarr_format": 3,
  "node_type": "array",
  "storage_transformers": []
})json";

// v3_f16/zarr.json
inline constexpr std::string_view kV3F16ZarrJson = R"json({
  "shape": [
    5
  ],
  "data_type": "float16",
  "chunk_grid": {
    "name": "regular",
    "configuration": {
      "chunk_shape": [
        5
      ]
    }
  },
  "chunk_key_encoding": {
    "name": "default",
    "configuration": {
      "separator": "/"
    }
  },
  "fill_value": "-Infinity",
  "codecs": [
    {
      "name": "bytes",
      "configuration": {
        "endian": "little"
      }
    },
    {
      "name": "zstd",
      "configuration": {
        "level": 0,
        "checksum": false
      }
    }
  ],
  "attributes": {},
  "zarr_format": 3,
  "node_type": "array",
  "storage_transformers": []
})json";

// v3_bool/zarr.json
inline constexpr std::string_view kV3BoolZarrJson = R"json({
  "shape": [],
  "data_type": "bool",
  "chunk_grid": {
    "name": "regular",
    "configuration": {
      "chunk_shape": []
    }
  },
  "chunk_key_encoding": {
    "name": "default",
    "configuration": {
      "separator": "/"
    }
  },
  "fill_value": true,
  "codecs": [
    {
      "name": "bytes"
    },
    {
      "name": "zstd",
      "configuration": {
        "level": 0,
        "checksum": false
      }
    }
  ],
  "attributes": {},
  "zarr_format": 3,
  "node_type": "array",
  "storage_transformers": []
})json";

// v3_be/zarr.json
inline constexpr std::string_view kV3BeZarrJson = R"json({
  "shape": [
    4,
    4
  ],
  "data_type": "uint32",
  "chunk_grid": {
    "name": "regular",
    "configuration": {
      "chunk_shape": [
        2,
        2
      ]
    }
  },
  "chunk_key_encoding": {
    "name": "v2",
    "configuration": {
      "separator": "."
    }
  },
  "fill_value": 0,
  "codecs": [
    {
      "name": "bytes",
      "configuration": {
        "endian": "little"
      }
    }
  ],
  "attributes": {},
  "zarr_format": 3,
  "node_type": "array",
  "storage_transformers": []
})json";

// v2_basic/.zarray
inline constexpr std::string_view kV2BasicZarray = R"json({
  "shape": [
    100,
    20
  ],
  "chunks": [
    10,
    5
  ],
  "dtype": "<i4",
  "fill_value": 0,
  "order": "C",
  "filters": null,
  "dimension_separator": ".",
  "compressor": {
    "id": "zstd",
    "level": 0
  },
  "zarr_format": 2
})json";

// v2_F/.zarray
inline constexpr std::string_view kV2FZarray = R"json({
  "shape": [
    100,
    20
  ],
  "chunks": [
    10,
    5
  ],
  "dtype": ">f8",
  "fill_value": "NaN",
  "order": "F",
  "filters": null,
  "dimension_separator": "/",
  "compressor": {
    "id": "zstd",
    "level": 0
  },
  "zarr_format": 2
})json";

// v2_F/.zattrs
inline constexpr std::string_view kV2FZattrs = R"json({
  "x": 1
})json";

// v2_str/.zarray
inline constexpr std::string_view kV2StrZarray = R"json({
  "shape": [
    5
  ],
  "chunks": [
    5
  ],
  "dtype": "|O",
  "fill_value": "",
  "order": "C",
  "filters": [
    {
      "id": "vlen-utf8"
    }
  ],
  "dimension_separator": ".",
  "compressor": {
    "id": "zstd",
    "level": 0
  },
  "zarr_format": 2
})json";

// v2_vbytes/.zarray
inline constexpr std::string_view kV2VbytesZarray = R"json({
  "shape": [
    5
  ],
  "chunks": [
    5
  ],
  "dtype": "|O",
  "fill_value": "",
  "order": "C",
  "filters": [
    {
      "id": "vlen-bytes"
    }
  ],
  "dimension_separator": ".",
  "compressor": {
    "id": "zstd",
    "level": 0
  },
  "zarr_format": 2
})json";

// v2_S/.zarray
inline constexpr std::string_view kV2SZarray = R"json({
  "shape": [
    5
  ],
  "chunks": [
    5
  ],
  "dtype": "|S3",
  "fill_value": "eHk=",
  "order": "C",
  "filters": null,
  "dimension_separator": ".",
  "compressor": {
    "id": "zstd",
    "level": 0
  },
  "zarr_format": 2
})json";

// v2_U/.zarray
inline constexpr std::string_view kV2UZarray = R"json({
  "shape": [
    5
  ],
  "chunks": [
    5
  ],
  "dtype": "<U3",
  "fill_value": "xy",
  "order": "C",
  "filters": null,
  "dimension_separator": ".",
  "compressor": {
    "id": "zstd",
    "level": 0
  },
  "zarr_format": 2
})json";

// v2_V/.zarray
inline constexpr std::string_view kV2VZarray = R"json({
  "shape": [
    5
  ],
  "chunks": [
    5
  ],
  "dtype": "|V2",
  "fill_value": "AAA=",
  "order": "C",
  "filters": null,
  "dimension_separator": ".",
  "compressor": {
    "id": "zstd",
    "level": 0
  },
  "zarr_format": 2
})json";

// v2_c/.zarray
inline constexpr std::string_view kV2CZarray = R"json({
  "shape": [
    5
  ],
  "chunks": [
    5
  ],
  "dtype": "<c16",
  "fill_value": [
    "Infinity",
    1.0
  ],
  "order": "C",
  "filters": null,
  "dimension_separator": ".",
  "compressor": {
    "id": "zstd",
    "level": 0
  },
  "zarr_format": 2
})json";

// v2_b/.zarray
inline constexpr std::string_view kV2BZarray = R"json({
  "shape": [
    5
  ],
  "chunks": [
    5
  ],
  "dtype": "|b1",
  "fill_value": false,
  "order": "C",
  "filters": null,
  "dimension_separator": ".",
  "compressor": {
    "id": "zstd",
    "level": 0
  },
  "zarr_format": 2
})json";

// v2_nofill/.zarray
inline constexpr std::string_view kV2NofillZarray = R"json({
  "shape": [
    5
  ],
  "chunks": [
    5
  ],
  "dtype": "|u1",
  "fill_value": null,
  "order": "C",
  "filters": null,
  "dimension_separator": ".",
  "compressor": null,
  "zarr_format": 2
})json";

// g3/zarr.json
inline constexpr std::string_view kG3ZarrJson = R"json({
  "attributes": {
    "title": "t"
  },
  "zarr_format": 3,
  "consolidated_metadata": {
    "kind": "inline",
    "must_understand": false,
    "metadata": {
      "a": {
        "shape": [
          4
        ],
        "data_type": "int16",
        "chunk_grid": {
          "name": "regular",
          "configuration": {
            "chunk_shape": [
              2
            ]
          }
        },
        "chunk_key_encoding": {
          "name": "default",
          "configuration": {
            "separator": "/"
          }
        },
        "fill_value": 0,
        "codecs": [
          {
            "name": "bytes",
            "configuration": {
              "endian": "little"
            }
          },
          {
            "name": "zstd",
            "configuration": {
              "level": 0,
              "checksum": false
            }
          }
        ],
        "attributes": {
          "u": "m"
        },
        "zarr_format": 3,
        "node_type": "array",
        "storage_transformers": []
      },
      "sub": {
        "attributes": {},
        "zarr_format": 3,
        "consolidated_metadata": {
          "kind": "inline",
          "must_understand": false,
          "metadata": {}
        },
        "node_type": "group"
      },
      "sub/b": {
        "shape": [
          3,
          3
        ],
        "data_type": "float32",
        "chunk_grid": {
          "name": "regular",
          "configuration": {
            "chunk_shape": [
              3,
              3
            ]
          }
        },
        "chunk_key_encoding": {
          "name": "default",
          "configuration": {
            "separator": "/"
          }
        },
        "fill_value": 1.5,
        "codecs": [
          {
            "name": "bytes",
            "configuration": {
              "endian": "little"
            }
          },
          {
            "name": "zstd",
            "configuration": {
              "level": 0,
              "checksum": false
            }
          }
        ],
        "attributes": {},
        "zarr_format": 3,
        "node_type": "array",
        "storage_transformers": []
      }
    }
  },
  "node_type": "group"
})json";

// g3/sub/zarr.json
inline constexpr std::string_view kG3SubZarrJson = R"json({
  "attributes": {},
  "zarr_format": 3,
  "node_type": "group"
})json";

// gplain/zarr.json
inline constexpr std::string_view kGplainZarrJson = R"json({
  "attributes": {},
  "zarr_format": 3,
  "node_type": "group"
})json";

// gattrs_nan/zarr.json
inline constexpr std::string_view kGattrsNanZarrJson = R"json({
  "attributes": {
    "n": NaN,
    "\u00e9": "\u00fc"
  },
  "zarr_format": 3,
  "node_type": "group"
})json";

// g2/.zattrs
inline constexpr std::string_view kG2Zattrs = R"json({
  "title": "t"
})json";

// g2/.zgroup
inline constexpr std::string_view kG2Zgroup = R"json({
  "zarr_format": 2
})json";

// g2/.zmetadata
inline constexpr std::string_view kG2Zmetadata = R"json({"metadata": {".zgroup": {"zarr_format": 2}, ".zattrs": {"title": "t"}, "a/.zattrs": {"u": "m"}, "a/.zarray": {"shape": [4], "chunks": [2], "dtype": "<i2", "fill_value": 0, "order": "C", "filters": null, "dimension_separator": ".", "compressor": {"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0}, "zarr_format": 2}, "sub/.zattrs": {}, "sub/.zgroup": {"zarr_format": 2, "consolidated_metadata": {"metadata": {}, "must_understand": false, "kind": "inline"}}, "sub/b/.zattrs": {}, "sub/b/.zarray": {"shape": [3, 3], "chunks": [3, 3], "dtype": "<f4", "fill_value": 1.5, "order": "C", "filters": null, "dimension_separator": ".", "compressor": {"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0}, "zarr_format": 2}}, "zarr_consolidated_format": 1})json";

}  // namespace turbozarr::testing
