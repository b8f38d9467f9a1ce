#pragma once
// Small ONNX models built in memory for the importer's tests.
#include <initializer_list>
#include <string>
#include <vector>

#include "onnx/onnx_pb.h"

namespace smelt::onnx_testing {

class ModelBuilder {
 public:
  explicit ModelBuilder(int64_t opset = 17) {
    model_.set_ir_version(8);
    onnx::OperatorSetIdProto* id = model_.add_opset_import();
    id->set_domain("");
    id->set_version(opset);
    model_.mutable_graph()->set_name("test_graph");
  }

  ModelBuilder& input(const std::string& name, int elem_type, std::vector<int64_t> shape) {
    set_type(model_.mutable_graph()->add_input(), name, elem_type, shape);
    return *this;
  }
  ModelBuilder& output(const std::string& name, int elem_type, std::vector<int64_t> shape) {
    set_type(model_.mutable_graph()->add_output(), name, elem_type, shape);
    return *this;
  }
  // An output declared with its element type only, no shape (legal ONNX);
  // elem_type 0 (UNDEFINED) leaves that out too.
  ModelBuilder& output_without_shape(const std::string& name, int elem_type) {
    onnx::ValueInfoProto* info = model_.mutable_graph()->add_output();
    info->set_name(name);
    info->mutable_type()->mutable_tensor_type()->set_elem_type(elem_type);
    return *this;
  }
  onnx::NodeProto& node(const std::string& op, std::vector<std::string> inputs, std::vector<std::string> outputs,
                        const std::string& name = {}) {
    onnx::NodeProto* n = model_.mutable_graph()->add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (const std::string& i : inputs) n->add_input(i);
    for (const std::string& o : outputs) n->add_output(o);
    return *n;
  }
  ModelBuilder& int64_initializer(const std::string& name, std::vector<int64_t> values) {
    onnx::TensorProto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    t->add_dims(static_cast<int64_t>(values.size()));
    for (int64_t v : values) t->add_int64_data(v);
    return *this;
  }
  ModelBuilder& float_initializer(const std::string& name, std::vector<int64_t> dims, std::vector<float> values) {
    onnx::TensorProto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->add_dims(d);
    for (float v : values) t->add_float_data(v);
    return *this;
  }
  std::string bytes() const { return model_.SerializeAsString(); }
  onnx::ModelProto& model() { return model_; }

 private:
  static void set_type(onnx::ValueInfoProto* info, const std::string& name, int elem_type,
                       const std::vector<int64_t>& shape) {
    info->set_name(name);
    onnx::TypeProto::Tensor* t = info->mutable_type()->mutable_tensor_type();
    t->set_elem_type(elem_type);
    onnx::TensorShapeProto* s = t->mutable_shape();
    for (int64_t d : shape) s->add_dim()->set_dim_value(d);
  }
  onnx::ModelProto model_;
};

inline void add_int_attr(onnx::NodeProto& n, const std::string& name, int64_t v) {
  onnx::AttributeProto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}
inline void add_float_attr(onnx::NodeProto& n, const std::string& name, float v) {
  onnx::AttributeProto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(v);
}
inline void add_ints_attr(onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& v) {
  onnx::AttributeProto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}
inline void add_string_attr(onnx::NodeProto& n, const std::string& name, const std::string& v) {
  onnx::AttributeProto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}

}  // namespace smelt::onnx_testing
